"""Memory known before the work: each sweep's largest runs estimated from their sizes, refused up front.

:func:`run_sizes` reads from a run's configuration (without building it) the sizes its memory depends on:
agents, horizon, observations, dimension, arms, candidates. :func:`run_memory_bytes` turns them into an
estimated peak resident memory: the algorithm's own ``memory_bytes`` classmethod (Approx-DisKernelUCB's
shared inverse and per-agent low-rank corrections, for example), else :data:`MEMORY_MODELS` (the exact GPs;
Async-KernelUCB, :func:`async_kernel_ucb_bytes`; Coop-, Eager- and Dist-KernelUCB,
:func:`coop_kernel_ucb_bytes`; FN-UCB, :func:`fn_ucb_bytes`; NeuralUCB/TS, :func:`neural_bandit_bytes`), else
:data:`SMALL_RUN_BYTES`, plus a worker's baseline. :func:`check_memory` (called by
:func:`bandits.runner.sweep` before it starts any run) adds the largest estimates, one per concurrent
worker, and raises :class:`MemoryBudgetError` naming the run, its estimate, the machine's available memory
and what to change, so that a sweep that cannot fit fails before the work instead of being killed by the
operating system after it.
"""
from __future__ import annotations

import math
import os
from functools import partial

__all__ = ["MemoryBudgetError", "run_sizes", "run_memory_bytes", "check_memory", "run_name",
           "WORKER_BASELINE_BYTES", "SMALL_RUN_BYTES", "MEMORY_MODELS", "MODEL_MARGIN", "TORCH_RUN_BYTES",
           "async_kernel_ucb_bytes", "async_dictionary_estimate", "context_spectrum", "sample_contexts",
           "effective_dimension_estimate", "log_det_estimate", "resolved", "DICTIONARY_ESTIMATES", "DEFF_SAMPLE",
           "DICT_SAFETY_SPARSE", "coop_kernel_ucb_bytes", "fn_ucb_bytes", "neural_bandit_bytes"]


class MemoryBudgetError(RuntimeError):
    """A sweep's largest runs, one per concurrent worker, would not fit in the machine's available memory
    (:func:`check_memory`); raised before any run starts."""


#: resident memory of a worker before its run's arrays: the interpreter, numpy, scipy, the package and torch
#: (measured: 71 MiB after ``import bandits.runner, bandits.algorithms, bandits.envs``, 252 MiB with torch),
#: with room for an environment's data set
WORKER_BASELINE_BYTES = 320 * 2**20
#: a run whose algorithm gives no estimate (no ``memory_bytes``): its arrays are small beside the baseline
SMALL_RUN_BYTES = 16 * 2**20


def run_sizes(config) -> dict:
    """The sizes of a regret run that its memory depends on, read from ``config`` without building it:
    ``N``, ``T``, ``points`` (observations: ``T`` with one client per step, the arena's ``"async"``
    protocol or an environment schedule other than ``"sync"``; ``N·T`` with every agent at every step),
    ``dim``, ``K`` (arms per step), ``M`` (candidates of a finite domain, else ``None``) and ``gamma`` (a
    graph's message lifetime where the environment fixes it, else ``None``). ``None`` for
    a configuration that is not a regret run of a registered algorithm."""
    if not isinstance(config, dict) or config.get("loop", "regret") != "regret" or "algorithm" not in config:
        return None
    try:
        N, T = int(config["N"]), int(config["T"])
    except (KeyError, TypeError, ValueError):
        return None
    spec = config.get("env") if isinstance(config.get("env"), dict) else {}
    kind = spec.get("kind", "finite")
    dim, M = spec.get("d"), None
    if "name" in spec:
        from .envs.functions import FUNCTIONS

        fs = FUNCTIONS.get(spec["name"])
        dim = dim or (fs.dim if fs is not None else None)
        if kind == "finite" and fs is not None:
            M = int(spec.get("M", 2000))
    if kind == "fn_synthetic":  # FN-UCB's synthetic functions: the environment's own defaults (d, K)
        import inspect

        from .envs.fn_ucb import fn_synthetic_env

        defaults = inspect.signature(fn_synthetic_env).parameters
        dim = dim or defaults["d"].default
        spec = dict(spec, K=spec.get("K", defaults["K"].default))
    default_schedule = "sync" if kind in ("finite", "coop", "fn_synthetic", "fn_classification") else "uniform"
    protocol = config.get("protocol")
    every_agent = protocol == "sync" if protocol else spec.get("schedule", default_schedule) == "sync"
    gamma = spec.get("gamma")
    return {"N": N, "T": T, "points": N * T if every_agent else T, "dim": int(dim or 64),
            "K": int(spec.get("K", 20)), "M": M, "gamma": int(gamma) if isinstance(gamma, int) else None}


def _doubled(n: int, start: int) -> int:
    """The capacity a buffer of ``start`` rows that doubles when full has after ``n`` rows."""
    cap = max(1, int(start))
    while cap < n:
        cap *= 2
    return cap


def _exact_gp_bytes(points: int, M, start: int = 64) -> int:
    """One exact GP of ``points`` observations (:mod:`bandits.estimators`): on fresh contexts the factor
    buffer of :class:`~bandits.estimators.ExactGP` (``cap²``, and the old one while it doubles); on a finite
    domain the rows of :class:`~bandits.estimators.CandidatePosterior` (``cap × M``, ``cap`` from 64 rows,
    and the added rows while they grow)."""
    if M:
        cap = _doubled(points, 64)
        return 8 * (cap + cap // 2) * int(M)
    cap = _doubled(points, start)
    return 8 * (cap * cap + (cap // 2) ** 2)


#: the factor on the storage models below (Async-KernelUCB, Coop-type, FN-UCB and the neural baselines): they
#: count the arrays a run keeps and its largest temporaries; what they leave out (the allocator's free
#: blocks, small arrays, the interpreter's objects) is below this share of the counted bytes on the runs
#: measured in ``tests/test_memory.py``, so the estimate errs towards refusing (with glibc's default
#: allocator settings; the opt-in of docs/running.md raises a run's peak by 27–39 %)
MODEL_MARGIN = 1.25


def _dictionary_bound(points: int, params: dict, M) -> int:
    """The largest dictionary a run can build: every observation (``points``), at most ``max_dict`` when the
    run caps it, at most the ``M`` candidates of a finite domain (a dependent point is never added)."""
    m = int(points)
    if params.get("max_dict") is not None:
        m = min(m, int(params["max_dict"]))
    if M:
        m = min(m, int(M))
    return max(0, m)


#: contexts drawn from a run's environment to estimate the spectrum of its observations' kernel matrix
#: (:func:`context_spectrum`)
DEFF_SAMPLE = 1000
#: the factor on Async-KernelUCB's dictionary estimate at ``q < 1`` (:func:`async_dictionary_estimate`; 1 at
#: ``q ≥ 1``): the committed γ/q panel's runs at q = 0.25 and 0.5 reached up to 15 % more than the
#: expected size at β = 1 (a sparser dictionary's variances overestimate the exact ones: Lemma 4.1's β > 1)
DICT_SAFETY_SPARSE = 1.25
_SPECTRA: dict = {}
_CONTEXTS: dict = {}


def _key(*parts) -> str:
    import json

    return json.dumps(parts, sort_keys=True, default=str)


def sample_contexts(env_spec: dict, m: int = DEFF_SAMPLE):
    """``m`` contexts of the environment ``env_spec`` (:func:`bandits.envs.make_env` at ``env_seed = 0``):
    its decision sets drawn one round at a time with a generator fixed to seed 0, every arm of a set kept,
    ``m`` rows chosen among them; a finite domain's candidates drawn ``m`` times with replacement. Cached
    per ``(env_spec, m)``; ``None`` where the environment cannot be built (a specification this module
    does not know, missing data)."""
    key = _key(env_spec, m)
    if key not in _CONTEXTS:
        import numpy as np

        from .envs import make_env

        try:
            env = make_env(env_spec, 0)
        except Exception:  # noqa: BLE001 - no sample: the caller falls back to the bound
            _CONTEXTS[key] = None
            return None
        rng = np.random.default_rng(0)
        rows, n, t = [], 0, 0
        while n < m and t < 10 * m:
            _, arms, _ = env.round(t, 1, rng)
            X = np.asarray(arms.X, dtype=float).reshape(-1, env.dim)
            rows.append(X)
            n, t = n + len(X), t + 1
            if arms.ids is not None:  # a fixed candidate set: every round shows the same rows
                break
        X = np.concatenate(rows)
        _CONTEXTS[key] = X[rng.choice(len(X), m, replace=len(X) < m)] if len(X) != m else X
    return _CONTEXTS[key]


def context_spectrum(env_spec: dict, kernel_spec, m: int = DEFF_SAMPLE):
    """The eigenvalues ``μ_1 … μ_m`` of the kernel matrix of :func:`sample_contexts` ``(env_spec, m)``
    (one ``eigvalsh`` of order ``m``: 0.1 s of CPU at ``m = 1000``), cached per environment, kernel and
    ``m``; ``None`` where there is no sample or the kernel cannot be built."""
    key = _key(env_spec, kernel_spec, m)
    if key not in _SPECTRA:
        import numpy as np

        from .kernels import make_kernel

        X = sample_contexts(env_spec, m)
        try:
            kernel = make_kernel(kernel_spec)
        except Exception:  # noqa: BLE001
            kernel = None
        _SPECTRA[key] = None if X is None or kernel is None else np.clip(np.linalg.eigvalsh(kernel(X)), 0.0, None)
    return _SPECTRA[key]


def _scaled(mu, n: int):
    import numpy as np

    mu = np.asarray(mu, dtype=float)
    return float(n) * mu / len(mu)


def effective_dimension_estimate(mu, n: int, lam: float) -> float:
    """``d_eff(λ) = Tr K_n (K_n + λI)⁻¹`` of ``n`` points, from the eigenvalues ``μ`` of the kernel matrix of
    ``m`` of them (:func:`context_spectrum`) scaled to ``n`` (the Nyström spectral extrapolation: the
    ``i``-th eigenvalue of ``K_n`` is about ``n μ_i / m``): ``Σ_i (n μ_i/m) / (n μ_i/m + λ)``."""
    import numpy as np

    s = _scaled(mu, n)
    return float(np.sum(s / (s + float(lam))))


def log_det_estimate(mu, n: int, lam: float) -> float:
    """``log det(I + λ⁻¹ K_n) = 2 γ`` (the information gain of the ``n`` points, Lemma 4.1's ``γ_T``) from the
    same scaled spectrum: ``Σ_i log(1 + n μ_i/(m λ))``."""
    import numpy as np

    return float(np.sum(np.log1p(_scaled(mu, n) / float(lam))))


def resolved(mu, n: int, lam: float) -> bool:
    """Whether the ``m`` sampled contexts resolve the spectrum at ``n`` points: the smallest scaled eigenvalue
    ``n μ_m / m`` is at most ``λ``. Where it is larger, the ``n − m`` eigenvalues the sample cannot see still
    count, their mass folded into the ``m`` it has, and the extrapolation understates ``log det`` and
    ``d_eff`` (a kernel near the identity on the contexts: ``m`` eigenvalues of about ``n/m`` where ``K_n`` has
    ``n`` of about 1). Measured on f1 (``m`` = 1 000, λ = 1): γ = 1, 0.10 at n = 2 000 and 0.51 at 10⁴;
    γ = 4, 1.25 and 6.2."""
    return float(_scaled(mu, n).min()) <= float(lam)


def async_dictionary_estimate(config, sizes: dict | None = None) -> int:
    """Async-KernelUCB's dictionary size at the end of a run of ``config``: an estimate from the run's data
    and sizes, not a bound.

    Lemma 4.1 (§4.2) bounds ``|S_k| ≤ 12 β (1 + βD) q γ_T`` with high probability; its proof (Lemma 4.3)
    bounds the expected size by ``β (1 + βD) q Σ_s σ²_{s−1}(x_s)``, the points' variances at their arrival
    (1/λ scale), a sum between ``2γ_T = log det(I + λ⁻¹K)`` and twice that (Lemma A.1). Estimated here as

        ``m̂ = c · (1 + min(D, 1)) · q · log det(I + λ⁻¹ K̂_n)``,  at most ``points``, ``max_dict`` and ``M``,

    the expectation at β = 1 (exact variances) with the sum at its lower end, the staleness factor
    ``1 + D`` taken at most at D = 1, where it was checked against runs (a choice of this package: Lemma
    4.1's ``1 + βD`` is a worst case, and at a large D most clients of a many-client run never exchange,
    so fewer points are ever sampled: the arena's map ran Async-KernelUCB at D = 10, N = 1 000 in at most
    2 s a run, where ``1 + D`` would have estimated dictionaries of every point); ``K̂_n`` the kernel matrix of
    ``n = points`` contexts of the run's environment under its kernel, its spectrum extrapolated from
    :data:`DEFF_SAMPLE` of them (:func:`context_spectrum`, :func:`log_det_estimate`; about 0.1 s of CPU,
    once per environment and kernel); ``c = 1`` at ``q ≥ 1`` and :data:`DICT_SAFETY_SPARSE` below. Where
    the sample does not resolve the spectrum at ``n`` (:func:`resolved`: a kernel close to the identity on
    the contexts) or the contexts cannot be drawn, the bound ``min(points, max_dict, M)``. The effective dimension
    ``d_eff(λ)`` of the same spectrum (:func:`effective_dimension_estimate`) is smaller (f1, γ = 1,
    n = 10⁴: 725 against ``log det`` 1 553) and would need a factor ≈ 2 fitted to the runs; ``γ_T`` is the
    paper's quantity.

    Against the committed full-mode runs (``figures/async_kernelucb``: N = 100, one client per step, λ = 1,
    D = 1, so ``m̂ = 2 q log det`` at ``q ≥ 1``; measured: the largest dictionary of the group's runs, or
    the mean of 3 where only the mean is recorded; f1 and f2 share their contexts, hence their estimate):

    =====================================  =======  ==========  ========  ========  ====================
    runs                                   n        measured    d_eff     log det   estimate m̂
    =====================================  =======  ==========  ========  ========  ====================
    Figure 2, f1, γ = 1 (10 runs)          10 000   2 897 max   725       1 553     3 107
    Figure 2, f2, γ = 1 (10 runs)          10 000   3 016 max   725       1 553     3 107
    Figure 2, MovieLens, γ = 1 (10 runs)   10 000   1 749 max   525       1 117     2 235
    Figure 2, Yelp, γ = 4 (10 runs)        10 000   1 693 max   606       1 424     2 849
    Figure 2, Magic, γ = 4 (10 runs)       10 000   20 max      20        103       206
    Figure 2, Mushroom, γ = 0.1 (10 runs)  10 000   17 max      18        66        132
    γ/q panel, f1, γ = 0.1 (3 runs)        10 000   225 mean    103       200       400
    γ/q panel, f1, γ = 1, q = 0.5          10 000   1 577 mean  725       1 553     1 942 (c = 1.25)
    γ/q panel, f1, γ = 1, q = 0.25         10 000   895 mean    725       1 553     971 (c = 1.25)
    tuning, f1, γ = 0.1 (9 runs)           2 000    105 max     44        88        177
    tuning, f1, γ = 1 (9 runs)             2 000    966 max     404       641       1 283
    tuning, f2, γ = 1 (9 runs)             2 000    794 max     404       641       1 283
    tuning, f1, γ = 4 (9 runs)             2 000    1 860 max   662       1 090     2 000 (unresolved)
    tuning, MovieLens, γ = 1 (9 runs)      2 000    724 max     281       475       951
    tuning, MovieLens, γ = 4 (9 runs)      2 000    1 694 max   560       946       1 892
    tuning, Yelp, γ = 1 (9 runs)           2 000    572 max     154       283       566
    tuning, Yelp, γ = 4 (9 runs)           2 000    1 391 max   369       637       1 275
    =====================================  =======  ==========  ========  ========  ====================

    Below the measured size: Yelp's tuning runs, by 9 % at γ = 4 and 1 % at γ = 1 (the contexts sampled
    are every arm of a decision set, one positive and 19 negatives; the observed ones are the chosen
    arms). No factor is applied at ``q ≥ 1`` for them: 1.1 would estimate Figure 2's f2 runs at 3 417, two
    workers at 24.06 GiB, and refuse on 24 GiB a sweep that ran there; the check's 25 % margin on bytes
    (:data:`MODEL_MARGIN`) covers a dictionary up to 11.8 % above its estimate. Without ``c`` the
    q = 0.25 and 0.5 runs were 15 % and 2 % above the estimate (a sparser dictionary's variances
    overestimate the exact ones: Lemma 4.1's β > 1). f1 at γ = 4, n = 10⁴ (the setting the notebook's
    rule 1 keeps from the long runs: its tuning dictionaries kept 92 % of their points) is not resolved
    (smallest scaled eigenvalue 6.2): the bound, 10⁴; the extrapolation would have given ``2 log det`` =
    4 766, about half of what those runs imply. The arena's map (N = 1 000, n = 10⁴, or 3 000 on cosine):
    Hartmann-4 99, shuttle 495, cosine 338 at D ≤ 1 (no dictionary size recorded there).

    A run whose estimate is wrong by a factor ``f`` has its memory misjudged by about ``f²`` (every client's
    stale ``m × m`` factor); the check's :data:`MODEL_MARGIN` is the only room beside it: a Figure 2 run on
    f2 is estimated at 10.1 GiB with the worker's baseline (measured ≈ 6.5 GiB on f1), two workers 20.1 GiB."""
    sizes = sizes or run_sizes(config)
    params = dict(config.get("params") or {})
    bound = _dictionary_bound(sizes["points"], params, sizes["M"])
    env_spec = config.get("env") if isinstance(config.get("env"), dict) else None
    mu = context_spectrum(env_spec, params.get("kernel", {"name": "rbf"})) if env_spec is not None else None
    if mu is None:
        return bound
    q, D, lam = float(params.get("q", 1.0)), float(params.get("D", 1.0)), float(params.get("lam", 1.0))
    n = int(sizes["points"])
    if not resolved(mu, n, lam):
        return bound
    c = 1.0 if q >= 1 else DICT_SAFETY_SPARSE
    return int(min(bound, math.ceil(c * (1.0 + min(D, 1.0)) * q * log_det_estimate(mu, n, lam))))


def async_kernel_ucb_bytes(N, T, dim, params, points, M, m: int | None = None) -> int:
    """Async-KernelUCB (:mod:`bandits.algorithms.async_kernel_ucb`), float64, with ``m`` the dictionary size
    (default :func:`_dictionary_bound`: ``m ≤ points``, ``max_dict``, ``M``, the worst case; a run's check
    passes the estimate of :func:`async_dictionary_estimate`):

    * every client's stale model, a factor ``C`` (``m_k × m_k``) and ``θ̃``: at most ``min(N, points) + 1``
      distinct models (one per client, the server's, the prior), each at most ``m² + m`` resident: the
      factor lies on a pooled buffer of ``(m_k + min(160, m_k // 8))²`` entries (``_FactorPool.size``),
      whose spare rows are address space only (a factor is written from the buffer's start, so the pages
      past its ``m_k²`` entries are never touched, and the kernel backs only the touched ones; a later,
      larger factor in the same buffer touches at most its own ``m²``), and the pool keeps up to
      ``_FactorPool.spare`` freed buffers (``m²`` each resident) besides; the eigen basis
      (``basis="eig"``) adds the model's ``B`` (``m²``) and points; ``keep_client_records`` the per-client
      ``Ã_i`` (``N·m²``);
    * the dictionary's factor and points in buffers doubled from 16 rows (``cap² + cap·d``, and the old
      factor while one doubles, ``(cap/2)²``);
    * the features ``Z`` of the exchanges not yet merged into the aggregate (its ``A`` property: every
      observation's row once, ``points·m``) and the aggregate itself (``m²``), the clients' raw buffers
      (``points·(d + 1)``) and an exchange's new factor (``m²``).
    """
    params = dict(params or {})
    m = _dictionary_bound(points, params, M) if m is None else int(m)
    d = int(dim)
    from .algorithms.async_kernel_ucb import _FactorPool

    models = min(int(N), int(points)) + 1
    per_model = m * m + m  # resident: a pooled buffer's spare rows are never touched (above)
    if params.get("basis", "chol") == "eig":
        per_model += m * m + m * d
    n = models * per_model + _FactorPool().spare * m * m
    if params.get("keep_client_records"):
        n += int(N) * (m * m + m)
    cap = _doubled(m, 16)
    n += cap * cap + (cap // 2) ** 2 + cap * d
    n += int(points) * m + m * m + int(points) * (d + 1) + m * m
    return int(MODEL_MARGIN * 8 * n)


#: Coop-type primal models are kept between rounds only while a rank's factors fit in this many bytes
#: (:attr:`bandits.algorithms.coop_primal.PrimalSolver.STATE_BYTES`, read here without importing it)
_COOP_STATE_BYTES = 768 << 20


def coop_kernel_ucb_bytes(N, T, dim, params, points, M, gamma: int | None = None) -> int:
    """Coop-, Eager- and Dist-KernelUCB (:mod:`bandits.algorithms.coop_engine`, primal path), float64, from
    ``V = N`` agents, ``T`` rounds, the context dimension, the features per context ``D`` (``dim`` for the
    linear kernel, else ``n_features``), the MMD embedding's ``n_embed``, the rank bound ``R`` (``r_limit``;
    else ``V`` under the default ``truncation="raise"``, whose safeguard raises a rank above ``r_max``; else
    ``r_max``) and the graph's message lifetime ``gamma`` (the environment's; by default
    ``V/2``, the largest ``⌊diam/2⌋``):

    * the histories (contexts ``T·V·d``, rewards and choices ``2·T·V``);
    * the per-source statistics ring of ``γ + 2`` rounds (``V·(D² + D + n_embed)`` a round) and the
      features' ring;
    * the factor rows of ``K̂_z`` (``V·V·R``) and ``K̂_z`` itself (``V²``);
    * the models' factors kept between rounds (:meth:`~bandits.algorithms.coop_primal.PrimalSolver._pool`):
      for each rank ``r`` in use a ``(models, r·D, r·D)`` pool, kept where it fits in the engine's state
      budget (``STATE_BYTES``, 768 MiB), counted as the pools of every rank up to ``R`` but at most that
      budget (the engine's comment reads it as a total; its check is per rank, so several large ranks in
      use at once could exceed it: measured on the linear row, V = 100, T = 200, one pool of rank 72,
      ≈ 400 MiB, beside the rank-10 one);
    * the batched build of one chunk at rank ``R`` (at most about ``4·10⁶`` doubles,
      :meth:`~bandits.algorithms.coop_primal.PrimalSolver._chunk_size`, in three workspaces) and the
      scoring of every agent's arms.

    The dual path (``path="dual"``) adds a Gram matrix of the visible observations and its factor per
    agent at a time (``2·(V·T)²`` at most)."""
    params = dict(params or {})
    V, T, d = int(N), int(T), int(dim)
    kname = (params.get("kernel") or {}).get("name", "linear") if isinstance(params.get("kernel"), dict) else "linear"
    D = d if kname == "linear" else int(params.get("n_features", 128))
    E = int(params.get("n_embed", 128))
    # the rank bound: r_limit; under truncation="raise" (the default) the ‖L_v‖² safeguard raises r above
    # r_max up to r_limit, else up to V; "own_residual" keeps r ≤ r_max
    if params.get("truncation", "raise") == "raise":
        R = params.get("r_limit") or V
    else:
        R = params.get("r_limit") or params.get("r_max") or V
    R = max(1, min(int(R), V))
    depth = (int(gamma) if gamma else max(1, V // 2)) + 2
    n = T * V * (d + 2) + depth * V * (D * D + 2 * D + E) + V * V * (R + 1)
    pools = sum(V * (r * D) ** 2 for r in range(1, R + 1))
    # one chunk of the batched build at rank R (PrimalSolver._chunk_size: ≈ 4·10⁶ doubles, fewer agents
    # than that allows: all of them), in three workspaces
    p = R * D
    per = max(p * p, (R * (R + 1) // 2) * (D * (D + 1) // 2)) + 2 * R * R * V
    chunk = min(V, max(1, 4_000_000 // per))
    n += min(pools, _COOP_STATE_BYTES // 8) + 3 * chunk * per + V * 20 * (D * R + 4)
    if params.get("path") == "dual":
        n += 2 * (V * T) ** 2
    return int(MODEL_MARGIN * 8 * n)


def _mlp_params(d: int, width: int, depth: int, init: str) -> int:
    """``p0`` of :class:`bandits.neural.MLP` (its docstring: ``dm + m + (depth−1)(m² + m) + m + 1`` with
    biases, ``init="official"``; without them under ``init="ntk"``)."""
    d, m, L = int(d), int(width), int(depth)
    if init == "ntk":
        return d * m + (L - 1) * m * m + m
    return d * m + m + (L - 1) * (m * m + m) + m + 1


#: what a neural run allocates beyond its arrays: torch's kernels and buffers loaded at the first forward and
#: backward pass (measured 7–9 MiB over a process that had imported torch, FN-UCB N = 5 and NeuralUCB N = 1
#: on cosine, width 20)
TORCH_RUN_BYTES = 16 * 2**20


def fn_ucb_bytes(N, T, dim, params, points, M, K: int = 20) -> int:
    """FN-UCB (:mod:`bandits.algorithms.fn_ucb`), from the agents ``N``, the iterations ``T``, the context
    dimension and the network (``width``, ``depth``, ``init``: ``p`` parameters, the NTK features'
    dimension; ``features="linear"``: ``p = d``), float64:

    * full matrices (``diag=False``): every agent's private ``V_{t,i}⁻¹`` and local ``(V^local_{t,i})⁻¹``
      (``2·N·p²``), the synchronised inverses (``V_sync⁻¹``, the Less-Comm. average and its snapshot,
      ``3·p²``) and an update's temporaries over all agents (``N·p²``); diagonal (``diag=True``): ``O(N·p)``;
    * the networks' training data (``N·T·(d + 1)``) and one batched training pass over it
      (:func:`bandits.neural`'s layer arrays, ``N·T·(2·width + d + 3)``);
    * every agent's ``K`` arms' gradient features (``2·N·K·p``) and the per-agent vectors (``6·N·p``)."""
    params = dict(params or {})
    width, depth = int(params.get("width", 20)), int(params.get("depth", 1))
    p = _mlp_params(dim, width, depth, params.get("init", "official")) if params.get("features", "ntk") == "ntk" \
        else int(dim)
    N, T, d = int(N), int(T), int(dim)
    n = N * T * (d + 1) + N * T * (2 * width + d + 3) + 2 * N * int(K) * p + 6 * N * p + T
    if not params.get("diag", False):
        n += (3 * N + 3) * p * p
    return int(MODEL_MARGIN * 8 * n) + TORCH_RUN_BYTES


def neural_bandit_bytes(N, T, dim, params, points, M, K: int = 20, diag: bool = False) -> int:
    """NeuralUCB / NeuralTS (:class:`bandits.algorithms.neural_baselines.NeuralBandit`; ``[diag]``: the
    diagonal variants), one network per agent, float64: every agent's ``U⁻¹`` (``N·p0²``, diagonal
    ``N·p0``) and a rank-one update's temporaries over the agents (``N·p0²``), the training data
    (``N·T·(d + 1)``) and a batched training pass (``N·T·(2·width + d + 3)``), the arms' gradient features
    (``2·N·K·p0``)."""
    params = dict(params or {})
    width, depth = int(params.get("width", 20)), int(params.get("depth", 1))
    p0 = _mlp_params(dim, width, depth, params.get("init", "official"))
    N, T, d = int(N), int(T), int(dim)
    n = N * T * (d + 1) + N * T * (2 * width + d + 3) + 2 * N * int(K) * p0 + 4 * N * p0
    if not (diag or params.get("diag", False)):
        n += 2 * N * p0 * p0
    return int(MODEL_MARGIN * 8 * n) + TORCH_RUN_BYTES


#: estimates for registered algorithms whose classes give none (``memory_bytes`` on the class comes first):
#: name -> ``(N, T, dim, params, points, M) -> bytes``, from the storage of the estimators they keep
MEMORY_MODELS = {
    # one exact GP over every observation (its factor buffer starts at T rows)
    "OneKernelUCB": lambda N, T, dim, params, points, M: _exact_gp_bytes(points, M, start=T),
    # one exact GP per agent over its own observations
    "N-KernelUCB": lambda N, T, dim, params, points, M: N * _exact_gp_bytes(-(-points // N), M),
    # the global posterior over the candidates and every agent's fork (16 rows each to start)
    "DisKernelUCB": lambda N, T, dim, params, points, M: _exact_gp_bytes(points, M) + 8 * 16 * N * int(M or 0),
    "AsyncKernelUCB": async_kernel_ucb_bytes,
    **{name: coop_kernel_ucb_bytes for name in ("Coop-KernelUCB", "Eager-KernelUCB", "Dist-KernelUCB")},
    **{name: fn_ucb_bytes for name in ("FN-UCB", "FN-UCB [only UCB_a]", "FN-UCB [only UCB_b]",
                                       "FN-UCB [no aggregation]")},
    "NeuralUCB": neural_bandit_bytes,
    "NeuralTS": neural_bandit_bytes,
    "NeuralUCB [diag]": partial(neural_bandit_bytes, diag=True),
    "NeuralTS [diag]": partial(neural_bandit_bytes, diag=True),
}


#: the dictionary size a memory model is given (its ``m``) where it is estimated from the run's data rather than
#: bounded: name -> ``(config, sizes) -> m``
DICTIONARY_ESTIMATES = {"AsyncKernelUCB": async_dictionary_estimate}


def _keywords(fn) -> set:
    """The keyword parameters of a memory model (``K``, ``gamma``: passed only to a model that takes them)."""
    import inspect

    return {k for k, v in inspect.signature(fn).parameters.items() if v.default is not inspect.Parameter.empty}


def run_memory_bytes(config) -> int:
    """Estimated peak resident memory of one run of ``config`` in its worker: the algorithm's own estimate
    from the run's sizes (a classmethod ``memory_bytes(N, T, dim, params, *, points, M, K)`` of the
    registered class, else :data:`MEMORY_MODELS`; :func:`run_sizes`), or :data:`SMALL_RUN_BYTES` where
    there is none, plus :data:`WORKER_BASELINE_BYTES`."""
    sizes = run_sizes(config)
    own = SMALL_RUN_BYTES
    if sizes is not None:
        from .algorithms import ALGORITHMS

        name = config["algorithm"]
        hook = getattr(ALGORITHMS.get(name), "memory_bytes", None)
        if hook is None and name in MEMORY_MODELS:
            model = MEMORY_MODELS[name]
            extra = {k: sizes[k] for k in ("K", "gamma") if k in _keywords(model)}
            if name in DICTIONARY_ESTIMATES:
                extra["m"] = DICTIONARY_ESTIMATES[name](config, sizes)
            own = int(model(sizes["N"], sizes["T"], sizes["dim"], dict(config.get("params", {})),
                            sizes["points"], sizes["M"], **extra))
        elif hook is not None:
            own = int(hook(sizes["N"], sizes["T"], sizes["dim"], dict(config.get("params", {})),
                           points=sizes["points"], M=sizes["M"], K=sizes["K"]))
    return WORKER_BASELINE_BYTES + own


def _available_memory() -> int:
    """The machine's available memory now (psutil's ``virtual_memory().available``)."""
    import psutil

    return int(psutil.virtual_memory().available)


def _gib(b) -> str:
    return f"{b / 2**30:.1f} GiB"


def check_memory(tasks, n_jobs: int, desc: str = "runs", available: int | None = None) -> int:
    """Refuse a sweep that cannot fit: the estimates of its largest runs (:func:`run_memory_bytes`), one per
    concurrent worker (``n_jobs``, ``-1``: every core; at most one per run), against the machine's available
    memory. Raises :class:`MemoryBudgetError` naming the largest run, its estimate, the total, the
    available memory and what to change (``n_jobs`` or the run's sizes); returns the total otherwise.
    ``BANDITS_MEMORY_CHECK=off`` skips the check (e.g. a machine whose swap or other jobs psutil
    misjudges)."""
    if os.environ.get("BANDITS_MEMORY_CHECK", "").lower() in ("0", "off", "false", "no"):
        return 0
    if not tasks:
        return 0
    workers = max(1, min(len(tasks), (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)))
    est = sorted(((run_memory_bytes(cfg), i) for i, (cfg, _) in enumerate(tasks)), reverse=True)
    need = sum(e for e, _ in est[:workers])
    avail = _available_memory() if available is None else int(available)
    if need > avail:
        big, i = est[0]
        cfg, rep = tasks[i]
        name = run_name(cfg, rep)
        alone = big <= avail
        raise MemoryBudgetError(
            f"the {desc!r} sweep would need about {_gib(need)} ({workers} concurrent worker(s) at n_jobs={n_jobs}, "
            f"the largest run {name} about {_gib(big)}), and the machine has {_gib(avail)} available. "
            + (f"Lower n_jobs (at most {max(1, avail // big)} of these runs fit at once) or the runs' sizes"
               if alone else "That run alone does not fit: lower its sizes (N, T, the candidates M, a dictionary "
                             "cap max_dict) or run it "
                             "on a larger machine")
            + "; no run was started.")
    return need


def run_name(cfg, rep) -> str:
    cfg = cfg if isinstance(cfg, dict) else {}
    parts = [str(cfg.get("algorithm", "?"))] + [f"{k}={cfg[k]}" for k in ("N", "T") if k in cfg]
    env = cfg.get("env")
    if isinstance(env, dict):
        parts.append("env=" + str(env.get("name") or env.get("dataset") or env.get("function") or env.get("kind")))
    params = cfg.get("params") if isinstance(cfg.get("params"), dict) else {}
    if "D" in params:
        parts.append(f"D={params['D']}")
    return " ".join(parts + [f"rep={rep}"])


