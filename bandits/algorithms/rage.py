r"""Single-agent pure-exploration baselines of CoPE-KB and their independent multi-agent copies.

CoPE-KB (Du, Chen, Kuroki, Huang, ICLR 2023) compares its collaborative algorithms with V
independent copies of single-agent algorithms, copy v running alone on agent v's n arms and never
communicating (CoPE-KB §6 and App. A):

==================  =====================================================  ===================
wrapper             single-agent core                                      objective
==================  =====================================================  ===================
:class:`IndRAGE`    :class:`RAGECore` (Fiez, Jain, Jamieson, Ratliff 2019)  fixed confidence
:class:`IndALBA`    :class:`ALBACore` (Tao, Blanco, Zhou 2018)              fixed confidence
:class:`IndPolyALBA` :class:`ALBACore` with ``design="spanner"``            fixed confidence
                    (Du, Kuroki, Chen 2021; *reconstruction*)
:class:`IndPeaceFB` :class:`PeaceFBCore` (Katz-Samuels et al. 2020, ω form) fixed budget
:class:`IndUniformFB` :class:`UniformFBCore` (uniform allocation)           fixed budget
==================  =====================================================  ===================

Features
--------
A core works on one agent's arm features, the rows of a (K, p) matrix.  The wrappers obtain them
from the kernel only, through the *empirical kernel map* of the agent's own block of the Gram
matrix, :math:`K_{vv} = [k(\tilde x_{v,i}, \tilde x_{v,j})]_{i,j\in[n]} = U\,\mathrm{diag}(s)\,U^\top`,
:math:`\Psi_v = U\,\mathrm{diag}(\sqrt s)` (eigenvalues below ``1e-10·max s`` dropped;
:func:`bandits.design.feature_map_from_gram`; a choice of this package, equivalent to CoPE-KB's
kernelised computations of App. C.2).  Rows of :math:`\Psi_v` reproduce every
inner product among the agent's :math:`\phi(\tilde x_{v,i})`, so every norm, design value and
ridge estimate below equals its feature-space value.  On the paper's instance :math:`\Psi_v` is a
rotation of the two-hot vectors (p = 4).

Estimator
---------
Every core except ALBA uses ridge regression from the per-arm counts :math:`n_i` and means
:math:`\bar y_i` of the data it was given, with a *per-sample* regulariser ξ (CoPE-KB §4.2 and
App. C.2; default ξ = 1e-6, a choice of this package: the paper does not state ξ)::

    θ̂ = (N ξ I + Σ_i n_i ψ_i ψ_iᵀ)⁻¹ Σ_i n_i ȳ_i ψ_i ,   N = Σ_i n_i ,   F̂_i = ψ_iᵀ θ̂.

Designs
-------
XY values :math:`\min_{\lambda\in\Delta_K}\max_{y}\|y\|^2_{A(\xi,\lambda)^{-1}}`,
:math:`A(\xi,\lambda) = \xi I + \sum_i\lambda_i\psi_i\psi_i^\top`, over the agent's own K arms, with
targets the differences of the active arms, are solved by
:func:`bandits.design.xy_optimal_design` (certified interior-point solver, relative gap 1e-6) and
cached per process by (features, ξ, solver, active set): the elimination paths revisit the same
sets constantly and the solves are deterministic, so caching never changes a result.  Designs are
rounded to integer pulls with Pukelsheim's efficient rounding
(:func:`bandits.design.efficient_rounding`, the RAGE/Peace codes' ``rounding``).

Confidence per copy
-------------------
Each FC copy runs at confidence δ/V (union bound over the V copies; a choice of this package, the paper does not say),
so IndRAGE's log factor log(2n²/δ_r) with δ_r = (δ/V)/(2r²) equals CoKernelFC's
log(2n²V/δ_r) with δ_r = δ/(2r²) up to the factor V inside the log — identical at V copies.

Gaussian shortcut
-----------------
The cores only consume per-arm counts and means, so the simulator may draw
:math:`\bar y_i\sim\mathcal N(F_i, 1/n_i)` directly (a shortcut of this package, exact for Gaussian noise); ALBA's i.i.d. design draws
are a multinomial count vector (drawn with the core's own Generator) followed by the same per-arm
means, which makes even its ~10⁵–10⁶-sample runs cost O(#batches).

The wrappers implement :class:`bandits.sim.PEPolicy`: every round they return the (V, n) pull
counts of all copies still running (finished copies pull nothing) and stop when every copy is
done.  They never write to the communication ledger.

Length (≈ 850 lines): one file on purpose. The four cores (RAGE, Peace-FB, uniform FB, ALBA) share
:class:`_Core`, the cached XY values and the ridge estimate, and the ``Ind*`` wrappers are thin
:class:`_IndPolicy` subclasses of those cores; the design solvers themselves live in :mod:`bandits.design`.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from ..design import (all_pairs, design_dimension, efficient_rounding, feature_map_from_gram,
                      pairwise_differences, xy_optimal_design)
from ..sim import PEPolicy
from .pe_common import CONSTANTS, sample_size, tau
from ..validation import between, check, ge, one_of, rule

__all__ = [
    "RAGECore", "PeaceFBCore", "UniformFBCore", "ALBACore",
    "IndRAGE", "IndPeaceFB", "IndUniformFB", "IndALBA", "IndPolyALBA",
    "agent_features", "oracle_theta_norms", "ridge_estimate", "xy_value", "clear_design_cache",
]

# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------

_DESIGN_CACHE: dict = {}
_DESIGN_CACHE_MAX = 200_000


def clear_design_cache() -> None:
    """Empty the per-process design cache (results never depend on it)."""
    _DESIGN_CACHE.clear()


def _features_key(features: np.ndarray) -> str:
    f = np.ascontiguousarray(np.asarray(features, dtype=float))
    return hashlib.sha1(f.tobytes() + str(f.shape).encode()).hexdigest()


def xy_value(features: np.ndarray, active, xi: float, method: str = "newton",
             key: str | None = None):
    r"""Cached XY design over all rows of ``features`` for the pairs of ``active``.

    Returns ``(weights, value)`` with ``value`` :math:`= \min_\lambda\max_{a,b\in\text{active}}
    \|\psi_a-\psi_b\|^2_{A(\xi,\lambda)^{-1}}` (RAGE's ρ(Y(Ẑ)), Peace's / CoPE-KB's
    ω(ξ, active) with the design restricted to the agent's own arms).  For fewer than two active
    arms the value is 0 (a convention of this package: ω of one arm := 0) and the weights are uniform.
    """
    act = tuple(sorted(int(a) for a in np.asarray(active).ravel()))
    K = features.shape[0]
    if len(act) < 2:
        return np.full(K, 1.0 / K), 0.0
    key = _features_key(features) if key is None else key
    ck = ("xy", key, float(xi), method, act)
    hit = _DESIGN_CACHE.get(ck)
    if hit is None:
        Y = pairwise_differences(features, all_pairs(np.array(act)))
        res = xy_optimal_design(features, Y, xi, method=method)
        hit = (res.weights.copy(), float(res.value))
        if len(_DESIGN_CACHE) >= _DESIGN_CACHE_MAX:
            _DESIGN_CACHE.clear()
        _DESIGN_CACHE[ck] = hit
    return hit[0].copy(), hit[1]


def ridge_estimate(features: np.ndarray, counts, means, xi: float) -> np.ndarray:
    r"""Ridge estimate :math:`\hat\theta = (N\xi I + \sum_i n_i\psi_i\psi_i^\top)^{-1}
    \sum_i n_i\bar y_i\psi_i` from per-arm counts and means (means ignored where ``n_i = 0``).

    This is CoPE-KB's estimator (§4.2, App. C.2, regulariser Nξ with ξ per sample) restricted to
    one agent; with ``xi = 0`` it is OLS via least squares (pseudo-inverse).
    """
    n = np.asarray(counts, dtype=float).ravel()
    m = np.where(n > 0, np.nan_to_num(np.asarray(means, dtype=float).ravel()), 0.0)
    N = n.sum()
    p = features.shape[1]
    A = (features.T * n) @ features
    b = features.T @ (n * m)
    if xi > 0 and N > 0:
        A[np.diag_indices(p)] += N * xi
        try:
            L = np.linalg.cholesky(A)
            return np.linalg.solve(L.T, np.linalg.solve(L, b))
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(A, b, rcond=None)[0]


def agent_features(instance, rtol: float = 1e-10) -> list[np.ndarray]:
    """Per-agent empirical kernel maps Ψ_v (n × p_v) from the diagonal blocks of the Gram matrix.

    Uses only the public kernel of ``instance`` (``instance.gram()``), never ``F``.
    """
    G = np.asarray(instance.gram(), dtype=float)
    V, n = instance.V, instance.n
    return [feature_map_from_gram(G[v * n:(v + 1) * n, v * n:(v + 1) * n], rtol=rtol) for v in range(V)]


def oracle_theta_norms(instance) -> list[float]:
    r"""Oracle norm bounds :math:`L_v = \|\theta^*_v\|` for :class:`IndALBA` (as the RAGE authors' ALBA re-implementation,
    ``ALBA_YELIM.py`` in fiezt/Transductive-Linear-Bandit-Code, uses; the CoPE-KB paper gives no
    ALBA constants).

    *Oracle knowledge*: reads the hidden rewards ``instance.F``; call it in the experiment and
    pass the result to the policy as ``theta_norms`` (the policy itself never reads ``F``).
    :math:`\theta^*_v` is the minimum-norm parameter in the span of agent v's features that
    reproduces ``F[v]`` on its arms, :math:`\Psi_v^+ F_v`.  On the paper's instance Ψ_v is an
    orthogonal rotation of the agent's 4-dim block of φ, so this equals the norm of the agent's
    block of θ* (e.g. ‖[0.1, 0.1+Δ, 0.1+2Δ, 0.1+3Δ]‖ at rank 1).
    """
    F = np.asarray(instance.F, dtype=float)
    out = []
    for v, Psi in enumerate(agent_features(instance)):
        theta = np.linalg.lstsq(Psi, F[v], rcond=None)[0]
        if not np.allclose(Psi @ theta, F[v], atol=1e-8 * max(1.0, np.abs(F[v]).max())):
            raise ValueError(f"agent {v}: F is not linear in the agent's features")
        out.append(float(np.linalg.norm(theta)))
    return out


def _check_constants(constants: str) -> None:
    check("constants", constants, one_of(*CONSTANTS))


# --------------------------------------------------------------------------------------------------
# single-agent cores
# --------------------------------------------------------------------------------------------------


class _Core:
    """Batched single-agent core: ``next_counts() -> (K,) int or None``, ``observe(counts, means)``,
    ``recommend() -> int``."""

    def __init__(self, features):
        X = np.asarray(features, dtype=float)
        check("features", X, rule(lambda a: a.ndim == 2 and a.shape[0] >= 1, "a (K, p) array with K >= 1"))
        self.X = X
        self.K = X.shape[0]
        self._key = _features_key(X)
        self.done = False
        self.samples = 0  # pulls so far
        self.n_batches = 0
        self._pending: np.ndarray | None = None

    def _emit(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.int64)
        self._pending = counts
        return counts.copy()

    def _take(self, counts, means):
        if self._pending is None:
            raise RuntimeError("observe() without a pending allocation")
        counts = np.asarray(counts, dtype=np.int64).ravel()
        if not np.array_equal(counts, self._pending):
            raise ValueError("observed counts differ from the allocation")
        self._pending = None
        self.samples += int(counts.sum())
        self.n_batches += 1
        return counts, np.asarray(means, dtype=float).ravel()


class RAGECore(_Core):
    r"""RAGE (Fiez et al., NeurIPS 2019) with X = Z = the agent's arms (CoPE-KB's IndRAGE, §6).

    Round r = 1, 2, … while :math:`|\hat Z_r| > 1`:

    * :math:`\delta_r = \delta/(2r^2)` (``delta`` is the copy's confidence, δ/V inside
      :class:`IndRAGE`; the 2r² matches CoKernelFC's δ_r, which the paper leaves undefined; δ/(2r²) is this package's
      reading of the log(2n²V/δ_r) in App. D.1);
    * :math:`(\lambda_r,\rho_r) = \arg\min/\min_{\lambda\in\Delta_K}\max_{z,z'\in\hat Z_r}
      \|z-z'\|^2_{A(\xi,\lambda)^{-1}}` (design over the agent's own arms);
    * :math:`N_r = \max\{\lceil c_N 4^r\rho_r\log(2K^2/\delta_r)\rceil,\ \tau\}` with
      :math:`c_N = 2(1+\varepsilon)` (``constants="practical"``, the RAGE code's
      :math:`8(2^{r-1})^2(1+\varepsilon)`) or :math:`32(1+\varepsilon)^2` (``"theory"``, the CoPE-KB
      paper's Alg. 1); ratio 16(1+ε) = 17.6 at ε = 0.1.
      :math:`\tau = \lceil d(\xi,\lambda_r)/\varepsilon^2\rceil`, d = number of eigenvalues of
      :math:`\sum_i\lambda_i\psi_i\psi_i^\top` above ξ (CoPE-KB's τ = O(d/ε²), §4.1; the constant 1 is a choice of this package);
    * pull the efficient rounding of :math:`\lambda_r` to :math:`N_r`; :math:`\hat\theta_r` = ridge on
      *this round's* samples only (regulariser :math:`N_r\xi`);
    * :math:`\hat Z_{r+1} = \hat Z_r\setminus\{z : \max_{z'\in\hat Z_r}(z'-z)^\top\hat\theta_r \ge
      2^{-r}\}` (the fixed threshold, RAGE code ``var=False``; a choice of this package: the RAGE code's
      default ``var=True`` eliminates on a variance-based width instead).

    Termination safety: after ``max_rounds`` (40, a choice of this package) the core stops and recommends the
    arm with the largest last estimate among the survivors (``info()["capped"]``).
    """

    def __init__(self, features, delta: float, xi: float = 1e-6, eps: float = 0.1,
                 constants: str = "practical", max_rounds: int = 40, design_method: str = "newton"):
        super().__init__(features)
        check("delta", delta, between(0, 1))
        _check_constants(constants)
        self.delta, self.xi, self.eps, self.constants = float(delta), float(xi), float(eps), constants
        self.max_rounds, self.design_method = int(max_rounds), design_method
        self.active = np.arange(self.K)
        self.r = 1
        self.capped = False
        self.last_estimate: np.ndarray | None = None
        self.history: list[dict] = []
        self.done = self.K <= 1

    def plan(self, r: int, active) -> tuple[np.ndarray, float, int]:
        """(design λ_r, ρ_r, N_r) for round ``r`` and active set ``active`` (no side effects)."""
        lam, rho = xy_value(self.X, active, self.xi, self.design_method, self._key)
        d_r = (2.0 * r * r)
        log_arg = 2.0 * self.K**2 / (self.delta / d_r)
        t = tau(design_dimension(self.X @ self.X.T, lam, self.xi), self.eps)
        N = sample_size(rho, r, log_arg, self.constants, self.eps, minimum=t)
        return lam, rho, N

    def next_counts(self):
        if self.done:
            return None
        lam, rho, N = self.plan(self.r, self.active)
        self.history.append({"round": self.r, "active": int(self.active.size), "rho": rho, "N": int(N)})
        return self._emit(efficient_rounding(lam, N))

    def observe(self, counts, means) -> None:
        counts, means = self._take(counts, means)
        theta = ridge_estimate(self.X, counts, means, self.xi)
        Fh = self.X @ theta
        self.last_estimate = Fh
        fa = Fh[self.active]
        keep = fa.max() - fa < 2.0 ** (-self.r)
        self.active = self.active[keep]
        self.r += 1
        if self.active.size <= 1:
            self.done = True
        elif self.r > self.max_rounds:
            self.done, self.capped = True, True

    def recommend(self) -> int:
        if self.active.size == 1:
            return int(self.active[0])
        if self.last_estimate is None:
            return int(self.active[0])
        return int(self.active[np.argmax(self.last_estimate[self.active])])

    def info(self) -> dict:
        return {"samples": self.samples, "rounds": self.n_batches, "capped": self.capped,
                "N_r": [h["N"] for h in self.history], "rho_r": [h["rho"] for h in self.history]}


class PeaceFBCore(_Core):
    r"""Fixed-budget Peace (Katz-Samuels et al., NeurIPS 2020), the ω variant (a choice of this package).

    The complexity is the XY "principal dimension" over the agent's own arms,
    :math:`\omega(S) = \min_{\lambda\in\Delta_K}\max_{a,b\in S}\|\psi_a-\psi_b\|^2_{A(\xi,\lambda)^{-1}}`
    (ω of one arm := 0), mirroring CoKernelFB (Algorithm 2, App. C.4) and a third-party public Peace
    re-implementation (a ``Peace`` class on ``fw_XY``) that uses the XY value in place of the width.  With budget T:

    * :math:`R = \lceil\log_2\omega(X_v)\rceil` (guard R ≥ 1), :math:`N = \lfloor T/R\rfloor`;
    * for k = 1..R while :math:`|Z_k| > 1`: pull the efficient rounding to N of the design of
      :math:`\omega(Z_k)`; :math:`\hat\theta_k` = ridge on round k's data (all rounds' data pooled
      when ``reuse_past_rounds=True``, as the official code does); sort :math:`Z_k` by
      :math:`\psi^\top\hat\theta_k` (descending, stable) and keep the longest prefix with
      :math:`\omega(\text{prefix})\le(1+\text{tie\_tol})\,\omega(Z_k)/2` (tie_tol = 1e-3, a choice of this
      package: ω(top 3) = ω(all)/2 exactly on the paper's instance);
    * return the survivor, or the argmax of the last estimate over :math:`Z` if R is exhausted.

    Uses at most R·N ≤ T samples.  ω values are cached by the set of arms.

    ``complexity="gaussian_width"`` (Peace's own complexity; not the default) replaces ω by Peace's
    original complexity, the Gaussian width :math:`\gamma(Z)=\inf_\lambda(\mathbb E\sup_{z\in Z}
    z^\top A(\xi,\lambda)^{-1/2}\eta)^2` (:func:`bandits.design.gaussian_width_design`: Adam as in
    the official code, the centred estimator, warm-started at the ω design), everywhere: the
    designs pulled, the cut rule and :math:`R=\lceil\max(\log_2\gamma(X_v),2)\rceil` (the
    official code's R).  The width of each set is a Monte-Carlo estimate seeded by ``seed`` and the
    set itself (independent of the order of evaluation); γ of one arm is 0.  ``width_kwargs`` go to
    :func:`~bandits.design.gaussian_width_design` (e.g. fewer ``n_iter`` / ``n_eval`` for speed).
    """

    def __init__(self, features, budget: int, xi: float = 1e-6, eps: float = 0.1,
                 reuse_past_rounds: bool = False, tie_tol: float = 1e-3,
                 design_method: str = "newton", complexity: str = "omega", seed=None,
                 width_kwargs: dict | None = None):
        super().__init__(features)
        check("budget", int(budget), ge(1))
        check("complexity", complexity, one_of("omega", "gaussian_width"))
        if complexity == "gaussian_width":
            check("seed", seed, rule(lambda s: s is not None, "given"), note="complexity='gaussian_width' draws")
        self.T, self.xi, self.eps = int(budget), float(xi), float(eps)
        self.reuse, self.tie_tol, self.design_method = bool(reuse_past_rounds), float(tie_tol), design_method
        self.complexity = complexity
        self._seed = seed if isinstance(seed, np.random.SeedSequence) or seed is None else np.random.SeedSequence(seed)
        self._width_kwargs = dict(width_kwargs or {})
        self._widths: dict = {}
        omega_all = self.omega(np.arange(self.K))
        if complexity == "gaussian_width":
            self.R = int(math.ceil(max(math.log2(omega_all), 2.0))) if omega_all > 0 else 2
        else:
            self.R = max(1, int(math.ceil(math.log2(omega_all)))) if omega_all > 1 else 1
        self.N = self.T // self.R
        self.Z = np.arange(self.K)
        self.k = 1
        self.last_estimate: np.ndarray | None = None
        self._cum_n = np.zeros(self.K)
        self._cum_s = np.zeros(self.K)
        self.sizes = [int(self.K)]
        self.done = self.K <= 1 or self.N < 1

    def _width(self, S):
        """(weights, γ) of the set S (cached; seeded by the core's seed and the set)."""
        act = tuple(sorted(int(a) for a in np.asarray(S).ravel()))
        if len(act) < 2:
            return np.full(self.K, 1.0 / self.K), 0.0
        hit = self._widths.get(act)
        if hit is None:
            from ..design import gaussian_width_design

            lam0, _ = xy_value(self.X, np.array(act), self.xi, self.design_method, self._key)
            mask = int(sum(1 << a for a in act))
            ss = np.random.SeedSequence(self._seed.entropy, spawn_key=tuple(self._seed.spawn_key) + (mask,))
            res = gaussian_width_design(self.X, self.X[list(act)], self.xi, np.random.default_rng(ss),
                                        weights0=lam0, **self._width_kwargs)
            hit = (res["weights"], float(res["gamma"]))
            self._widths[act] = hit
        return hit[0].copy(), hit[1]

    def omega(self, S) -> float:
        """The complexity of S: ω(ξ, S) (default) or the Gaussian width γ(S)."""
        if self.complexity == "gaussian_width":
            return self._width(S)[1]
        return xy_value(self.X, S, self.xi, self.design_method, self._key)[1]

    def next_counts(self):
        if self.done:
            return None
        if self.complexity == "gaussian_width":
            lam, _ = self._width(self.Z)
        else:
            lam, _ = xy_value(self.X, self.Z, self.xi, self.design_method, self._key)
        return self._emit(efficient_rounding(lam, self.N))

    def observe(self, counts, means) -> None:
        counts, means = self._take(counts, means)
        if self.reuse:
            pos = counts > 0
            self._cum_s[pos] += counts[pos] * means[pos]
            self._cum_n += counts
            n = self._cum_n
            m = np.divide(self._cum_s, n, out=np.zeros(self.K), where=n > 0)
        else:
            n, m = counts, means
        Fh = self.X @ ridge_estimate(self.X, n, m, self.xi)
        self.last_estimate = Fh
        order = self.Z[np.argsort(-Fh[self.Z], kind="stable")]
        thr = (1.0 + self.tie_tol) * self.omega(self.Z) / 2.0
        i = 1
        while i < order.size and self.omega(order[:i + 1]) <= thr:  # ω is monotone in the set
            i += 1
        self.Z = np.sort(order[:i])
        self.sizes.append(int(self.Z.size))
        self.k += 1
        if self.Z.size <= 1 or self.k > self.R:
            self.done = True

    def recommend(self) -> int:
        if self.Z.size == 1 or self.last_estimate is None:
            return int(self.Z[0])
        return int(self.Z[np.argmax(self.last_estimate[self.Z])])

    def info(self) -> dict:
        return {"samples": self.samples, "rounds": self.n_batches, "R": self.R, "N": self.N,
                "sizes": self.sizes}


class UniformFBCore(_Core):
    r"""Uniform allocation (CoPE-KB App. A: "the uniform sampling strategy"; as the Peace repo's
    ``uniform_fixed_budget``, jkatzsam/linear_bandits_empirical_process): round the uniform
    design over the K arms to exactly T pulls (efficient rounding: counts differ by at most one),
    fit the ridge estimate on them and return :math:`\arg\max_i\psi_i^\top\hat\theta`."""

    def __init__(self, features, budget: int, xi: float = 1e-6):
        super().__init__(features)
        check("budget", int(budget), ge(1))
        self.T, self.xi = int(budget), float(xi)
        self.estimate: np.ndarray | None = None

    def next_counts(self):
        if self.done:
            return None
        return self._emit(efficient_rounding(np.full(self.K, 1.0 / self.K), self.T))

    def observe(self, counts, means) -> None:
        counts, means = self._take(counts, means)
        self.estimate = self.X @ ridge_estimate(self.X, counts, means, self.xi)
        self.done = True

    def recommend(self) -> int:
        return 0 if self.estimate is None else int(np.argmax(self.estimate))

    def info(self) -> dict:
        return {"samples": self.samples, "rounds": self.n_batches}


def _span_arms(X: np.ndarray, active: np.ndarray, rtol: float = 1e-9) -> tuple[np.ndarray, int]:
    """All arms lying in span(X[active]) (ALBA's "span arms") and that span's dimension."""
    A = X[active]
    U, s, _ = np.linalg.svd(A.T, full_matrices=False)
    if s.size == 0 or s[0] <= 0:
        return np.asarray(active), 0
    rank = int(np.sum(s > rtol * s[0]))
    B = U[:, :rank]
    resid = X - (X @ B) @ B.T
    scale = np.maximum(np.linalg.norm(X, axis=1), 1e-300)
    inside = np.linalg.norm(resid, axis=1) <= 1e-8 * scale
    inside[active] = True
    return np.flatnonzero(inside), rank


def _greedy_basis(X: np.ndarray, idx: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Greedy maximal linearly independent subset of the rows ``idx`` (in index order)."""
    chosen: list[int] = []
    Q = np.zeros((X.shape[1], 0))
    for i in idx:
        x = X[i]
        r = x - Q @ (Q.T @ x)
        nr = np.linalg.norm(r)
        if nr > rtol * max(np.linalg.norm(x), 1e-300):
            chosen.append(int(i))
            Q = np.column_stack([Q, r / nr])
    return np.array(chosen, dtype=int)


class ALBACore(_Core):
    r"""ALBA (Tao, Blanco, Zhou, ICML 2018) following the RAGE authors' public re-implementation
    ``ALBA_YELIM.py`` (``fiezt/Transductive-Linear-Bandit-Code``); the CoPE-KB paper (§6) names ALBA only.

    With d = ``features.shape[1]`` (the rank of the agent's features; 4 on the paper's instance),
    norm bound L = ``theta_norm`` (= ‖θ*_v‖, oracle knowledge as in the reference code)
    and confidence δ (δ/V inside :class:`IndALBA`)::

        active ← all arms; r ← 0
        while |active| > 1:                                   # phase r ("ElimTil_p")
            δ_r = 6δ/(π²(r+1)²);  p = ⌊d/2^r⌋;  s ← 1;  m_r = |active|
            while |active| > max(p, 1):
                δ_s = 6δ_r/(π² s²);  e_s = 2^{-s};  c_0 = max(4L², 3)
                l_s = 4 c_0 (2 + (6 + 4/1.1^s) d) (1.1^s/4)²
                T_s = ⌈l_s log(5 m_r² / (2δ_s))⌉
                λ = design on the span arms (arms in span(active))
                draw T_s arms i.i.d. from λ;  M = Σ_x λ_x x xᵀ  (expected design matrix)
                θ̂ = (T_s M)⁺ Σ_t x_t y_t
                x̂ = argmax_{x ∈ active} xᵀθ̂
                drop every x ≠ x̂ with width(x̂ − x) < (x̂ − x)ᵀθ̂
                s ← s + 1
            r ← r + 1

    Width of y = x̂ − x, with :math:`v_y=\sqrt{y^\top M^+y}` and l = l_s:

    * err₁ = √2·L·v_y/√l + 2L(‖y‖ + v_y√d)/(3l) + √(2(v_y²/l·√(3d/l) + v_y²/l));
    * E = Σ_x λ_x ((xᵀM⁺y)(|xᵀθ̂| + e_s/2))²;
    * err₂ = √(2E/l) + (2(|yᵀθ̂| + e_s/2) + L v_y √d)/(3l) + √(2(v_y²/l·√(3d/l) + v_y²/l));
    * width = min(err₁, err₂).

    Design (``design="g-optimal"``, ALBA): G-optimal on the span arms by the reference code's
    Frank–Wolfe — uniform start, step γ = 2/(k+2) toward :math:`\arg\max_x\|x\|^2_{M^+}` — until
    :math:`|\max_x\|x\|^2_{M(\lambda)^+} - \text{target}| < 0.01` (5000 iterations at most);
    weights < 1e-5 are zeroed and their mass added to the largest weight.  Two deliberate
    deviations from the reference code, both documented here: (i) the stopping test is applied to
    the design being returned (the reference code tests the design *before* its last FW step, so on
    an instance where the uniform start is already G-optimal — the paper's — it returns uniform
    moved 2/3 of the way to one vertex); (ii) the target is the dimension of span(active) (the
    optimum of the G-design by Kiefer–Wolfowitz) instead of min(d, |active|), which coincide unless
    the active arms are linearly dependent (then the reference FW runs to its cap toward the same
    value).  ``design="spanner"`` (PolyALBA, a reconstruction by this package: no code of PolyALBA was found): uniform weights on a
    greedily chosen (index order) maximal linearly independent subset of the span arms, no FW.

    The multinomial draw uses the core's Generator; observations are per-arm means (Gaussian
    shortcut).  ``max_batches`` (default 2000) caps the inner iterations; the core then stops and
    recommends x̂ (``info()["capped"]``).
    """

    def __init__(self, features, delta: float, theta_norm: float, rng: np.random.Generator,
                 design: str = "g-optimal", fw_tol: float = 0.01, fw_max_iter: int = 5000,
                 max_batches: int = 2000):
        super().__init__(features)
        check("delta", delta, between(0, 1))
        check("theta_norm", theta_norm, rule(lambda v: v is not None and np.isfinite(v) and v >= 0,
                                             "a finite number >= 0"))
        check("design", design, one_of("g-optimal", "spanner"))
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy.random.Generator")
        self.delta, self.L, self.rng, self.design = float(delta), float(theta_norm), rng, design
        self.fw_tol, self.fw_max_iter, self.max_batches = float(fw_tol), int(fw_max_iter), int(max_batches)
        self.d = self.X.shape[1]
        self.active = np.arange(self.K)
        self.r = -1  # phase counter; the first call to next_counts opens phase 0
        self.p = 0
        self.s = 1
        self.m_r = self.K
        self.capped = False
        self.x_hat: int | None = None
        self.phase_sizes: list[int] = []
        self.T_s: list[int] = []
        self._cur: dict | None = None
        self._designs: dict = {}
        self.done = self.K <= 1

    # -- design ---------------------------------------------------------------------------------
    def _design(self, active) -> np.ndarray:
        key = (self.design, tuple(int(a) for a in active))
        lam = self._designs.get(key)
        if lam is None:
            gk = ("alba", self._key, self.design, self.fw_tol, self.fw_max_iter, key[1])
            lam = _DESIGN_CACHE.get(gk)
            if lam is None:
                lam = self._compute_design(np.asarray(active))
                if len(_DESIGN_CACHE) >= _DESIGN_CACHE_MAX:
                    _DESIGN_CACHE.clear()
                _DESIGN_CACHE[gk] = lam
            self._designs[key] = lam
        return lam

    def _compute_design(self, active: np.ndarray) -> np.ndarray:
        span, rank = _span_arms(self.X, active)
        lam = np.zeros(self.K)
        if self.design == "spanner":
            basis = _greedy_basis(self.X, span)
            lam[basis] = 1.0 / basis.size
            return lam
        Xh = self.X[span]
        w = np.full(span.size, 1.0 / span.size)
        target = float(rank)
        for count in range(1, self.fw_max_iter + 1):
            Minv = np.linalg.pinv((Xh.T * w) @ Xh, hermitian=True)
            lev = np.einsum("ij,jk,ik->i", Xh, Minv, Xh)  # ‖x‖²_{M⁺}
            if abs(lev.max() - target) < self.fw_tol:
                break
            i = int(np.argmax(lev))  # = argmax_x (xᵀM⁺x*)² by Cauchy–Schwarz
            gamma = 2.0 / (count + 2.0)
            w = (1.0 - gamma) * w
            w[i] += gamma
        lam[span] = w
        small = lam < 1e-5
        drop = lam[small].sum()
        lam[small] = 0.0
        lam[np.argmax(lam)] += drop
        return lam

    # -- protocol -------------------------------------------------------------------------------
    def next_counts(self):
        if self.done:
            return None
        if self.active.size <= max(self.p, 1) or self.r < 0:  # open the next phase
            if self.active.size <= 1:
                self.done = True
                return None
            self.r += 1
            self.p = int(self.d // 2**self.r)
            self.s = 1
            self.m_r = int(self.active.size)
            self.phase_sizes.append(self.m_r)
            if self.active.size <= max(self.p, 1):  # nothing to eliminate in this phase
                return self.next_counts()
        if self.n_batches >= self.max_batches:
            self.done, self.capped = True, True
            return None
        s = self.s
        delta_r = 6.0 * self.delta / (math.pi**2 * (self.r + 1) ** 2)
        delta_s = 6.0 * delta_r / (math.pi**2 * s * s)
        c0 = max(4.0 * self.L**2, 3.0)
        l_s = 4.0 * c0 * (2.0 + (6.0 + 4.0 / 1.1**s) * self.d) * (1.1**s / 4.0) ** 2
        T_s = int(math.ceil(l_s * math.log(5.0 * self.m_r**2 / (2.0 * delta_s))))
        lam = self._design(self.active)
        counts = self.rng.multinomial(T_s, lam / lam.sum()).astype(np.int64)
        self._cur = {"lam": lam, "l": l_s, "e": 2.0 ** (-s), "T": T_s}
        self.T_s.append(T_s)
        return self._emit(counts)

    def observe(self, counts, means) -> None:
        counts, means = self._take(counts, means)
        cur = self._cur
        lam, l, e_s, T = cur["lam"], cur["l"], cur["e"], cur["T"]
        X, d, L = self.X, self.d, self.L
        M = (X.T * lam) @ X
        Minv = np.linalg.pinv(M, hermitian=True)
        pos = counts > 0
        b = X[pos].T @ (counts[pos] * means[pos])  # Σ_t x_t y_t
        theta = (Minv @ b) / T  # (T M)⁺ b
        act = self.active
        fa = X[act] @ theta
        j = int(np.argmax(fa))
        xh = act[j]
        others = np.delete(act, j)
        Y = X[xh] - X[others]  # (m, d)
        MY = Y @ Minv  # rows yᵀM⁺
        vy = np.sqrt(np.maximum(np.einsum("ij,ij->i", MY, Y), 0.0))
        ynorm = np.linalg.norm(Y, axis=1)
        common = np.sqrt(2.0 * (vy**2 / l * np.sqrt(3.0 * d / l) + vy**2 / l))
        err1 = math.sqrt(2.0) * L * vy / math.sqrt(l) + 2.0 * L * (ynorm + vy * math.sqrt(d)) / (3.0 * l) + common
        P = X @ MY.T  # (K, m): xᵀM⁺y
        c = np.abs(X @ theta) + e_s / 2.0
        E = (lam * c**2) @ (P**2)
        gap = Y @ theta
        err2 = np.sqrt(2.0 * E / l) + (2.0 * (np.abs(gap) + e_s / 2.0) + L * vy * math.sqrt(d)) / (3.0 * l) + common
        width = np.minimum(err1, err2)
        drop = width < gap
        self.active = np.sort(np.r_[xh, others[~drop]])
        self.x_hat = int(xh)
        self.s += 1
        self._cur = None
        if self.active.size <= 1:
            self.done = True

    def recommend(self) -> int:
        if self.active.size == 1:
            return int(self.active[0])
        return int(self.x_hat) if self.x_hat is not None else int(self.active[0])

    def info(self) -> dict:
        return {"samples": self.samples, "batches": self.n_batches, "phases": len(self.phase_sizes),
                "capped": self.capped}


# --------------------------------------------------------------------------------------------------
# independent multi-agent wrappers
# --------------------------------------------------------------------------------------------------


def _child_seed(seed, v: int) -> np.random.SeedSequence:
    """The v-th child of ``seed`` without mutating it (same seed -> same children)."""
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (int(v),))
    return np.random.SeedSequence(seed, spawn_key=(int(v),))


class _IndPolicy(PEPolicy):
    """V independent single-agent copies, agent v on its own arms (empirical kernel map of its
    Gram block); no communication (nothing is ever written to the ledger)."""

    name = "ind"

    def __init__(self, instance, seed, ledger):
        super().__init__(instance, seed, ledger)
        self.V, self.n = int(instance.V), int(instance.n)
        self.features = agent_features(instance)
        self.cores: list = []
        self._running: list[int] = []
        self.n_rounds = 0

    def next_allocation(self):
        alloc = np.zeros((self.V, self.n), dtype=np.int64)
        self._running = []
        for v, core in enumerate(self.cores):
            if core.done:
                continue
            c = core.next_counts()
            if c is None:
                continue
            alloc[v] = c
            self._running.append(v)
        if not self._running:
            return None
        self.n_rounds += 1
        return alloc

    def observe(self, counts, means) -> None:
        counts = np.asarray(counts)
        means = np.asarray(means, dtype=float)
        for v in self._running:
            self.cores[v].observe(counts[v], means[v])
        self._running = []

    def recommend(self) -> np.ndarray:
        return np.array([core.recommend() for core in self.cores], dtype=np.int64)

    def info(self) -> dict:
        per = [core.info() for core in self.cores]
        samples = [int(core.samples) for core in self.cores]
        return {"samples_per_agent": samples, "mean_samples_per_agent": float(np.mean(samples)),
                "rounds_per_agent": [int(core.n_batches) for core in self.cores],
                "rounds": int(self.n_rounds), "agents": per}


class IndRAGE(_IndPolicy):
    """V independent :class:`RAGECore` copies at confidence δ/V each (CoPE-KB §6; δ/V is this package's choice).

    Params: ``delta`` (0.005), ``xi`` (1e-6), ``eps`` (0.1), ``constants`` ("practical" |
    "theory"), ``max_rounds`` (40), ``design_method`` ("newton").
    """

    name = "IndRAGE"

    def __init__(self, instance, seed, ledger, *, delta: float = 0.005, xi: float = 1e-6,
                 eps: float = 0.1, constants: str = "practical", max_rounds: int = 40,
                 design_method: str = "newton"):
        super().__init__(instance, seed, ledger)
        self.params = dict(delta=delta, xi=xi, eps=eps, constants=constants)
        self.cores = [RAGECore(F, delta / self.V, xi=xi, eps=eps, constants=constants,
                               max_rounds=max_rounds, design_method=design_method)
                      for F in self.features]


class IndPeaceFB(_IndPolicy):
    """V independent :class:`PeaceFBCore` copies, budget T each (CoPE-KB App. A; ω variant).

    Params: ``budget`` (T per agent, required; alias ``T``), ``xi`` (1e-6), ``eps`` (0.1),
    ``reuse_past_rounds`` (False), ``tie_tol`` (1e-3), ``design_method`` ("newton"),
    ``complexity`` ("omega", default, or "gaussian_width": Peace's original complexity, see
    :class:`PeaceFBCore`; agent v's Monte-Carlo draws come from the v-th child of the policy's
    seed), ``width_kwargs`` (forwarded to the width design).
    """

    name = "IndPeaceFB"

    def __init__(self, instance, seed, ledger, *, budget: int | None = None, T: int | None = None,
                 xi: float = 1e-6, eps: float = 0.1, reuse_past_rounds: bool = False,
                 tie_tol: float = 1e-3, design_method: str = "newton", complexity: str = "omega",
                 width_kwargs: dict | None = None):
        super().__init__(instance, seed, ledger)
        budget = _budget(budget, T)
        check("complexity", complexity, one_of("omega", "gaussian_width"))
        self.cores = [PeaceFBCore(F, budget, xi=xi, eps=eps, reuse_past_rounds=reuse_past_rounds,
                                  tie_tol=tie_tol, design_method=design_method, complexity=complexity,
                                  seed=_child_seed(seed, v) if complexity == "gaussian_width" else None,
                                  width_kwargs=width_kwargs)
                      for v, F in enumerate(self.features)]


class IndUniformFB(_IndPolicy):
    """V independent :class:`UniformFBCore` copies, exactly T pulls each (CoPE-KB App. A).

    Params: ``budget`` (T per agent, required; alias ``T``), ``xi`` (1e-6).
    """

    name = "IndUniformFB"

    def __init__(self, instance, seed, ledger, *, budget: int | None = None, T: int | None = None,
                 xi: float = 1e-6):
        super().__init__(instance, seed, ledger)
        budget = _budget(budget, T)
        self.cores = [UniformFBCore(F, budget, xi=xi) for F in self.features]


def _budget(budget, T) -> int:
    if budget is None and T is None:
        raise TypeError("a fixed-budget policy needs budget=T (per-agent samples)")
    if budget is not None and T is not None:
        check("budget", int(budget), one_of(int(T)), note="budget and T must agree")
    return int(budget if budget is not None else T)


def _norms(theta_norms, V: int) -> list[float]:
    if theta_norms is None:
        raise TypeError("ALBA needs theta_norms (per-agent ‖θ*_v‖; see oracle_theta_norms)")
    arr = np.atleast_1d(np.asarray(theta_norms, dtype=float))
    if arr.size == 1:
        arr = np.full(V, float(arr[0]))
    check("theta_norms", arr, rule(lambda a: a.shape == (V,), f"{V} entries (one per agent)"))
    return [float(a) for a in arr]


class IndALBA(_IndPolicy):
    """V independent :class:`ALBACore` copies at confidence δ/V each (CoPE-KB §6; δ/V is this package's choice).

    Params: ``theta_norms`` (required: list of per-agent ‖θ*_v‖, or one number for all; the
    experiment computes it, e.g. with :func:`oracle_theta_norms`), ``delta`` (0.005),
    ``fw_tol`` (0.01), ``fw_max_iter`` (5000), ``max_batches`` (2000).  Copy v draws its
    multinomial allocations from its own child stream of ``seed``.
    """

    name = "IndALBA"
    _design = "g-optimal"

    def __init__(self, instance, seed, ledger, *, theta_norms=None, delta: float = 0.005,
                 fw_tol: float = 0.01, fw_max_iter: int = 5000, max_batches: int = 2000):
        super().__init__(instance, seed, ledger)
        norms = _norms(theta_norms, self.V)
        self.cores = [ALBACore(F, delta / self.V, norms[v], np.random.default_rng(_child_seed(seed, v)),
                               design=self._design, fw_tol=fw_tol, fw_max_iter=fw_max_iter,
                               max_batches=max_batches)
                      for v, F in enumerate(self.features)]


class IndPolyALBA(IndALBA):
    """IndALBA with the PolyALBA design: uniform on a greedy spanner of the span arms
    (a reconstruction by this package; label curves "PolyALBA (reconstructed)")."""

    name = "IndPolyALBA"
    _design = "spanner"
