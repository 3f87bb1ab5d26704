r"""Coop-KernelUCB (Dubey & Pentland, ICML 2020): empirical checks of the theory (C1–C10, this package's checks of
Theorems 1–2, Corollary 1, Lemmas 2–4 and Remark 5).

Each check is fixed before the runs: its quoted statement, the quantity, the threshold and the
interval method. A slope check (C1, C4, C5, C8) takes the run as its unit: one least-squares log–log slope per
run, and Student's t interval over the runs' slopes (:func:`bandits.claims.per_run_slope_check`; a range as
two one-sided parts, both required), since the points of one run share its seeds (the same run index at every
grid value) or lie on one trajectory (C5's rounds, C8's nested samples), while the runs are independent. Regret checks use per-agent regret ``R̂(T) = R_G(T)/V`` with the **oracle** ``K_z``
(Theorems 1–2 and Corollary 1 assume ``K_z`` known), linear ``K_x``, η = 1, λ = 1,
noise ``N(0, 0.1²)`` and the environments of :mod:`bandits.envs.coop` (setup 1 contexts; one cluster
unless the check varies it). Run ``r`` of every method and configuration shares its context and noise
streams (common random numbers; :func:`bandits.runner.run_seeds`) and its bandit (``env_seed = r``).

* **C1** (Theorem 1 / Cor. 1 with ``χ̄ = 1``): complete graph, one cluster, ``V`` on a grid: the
  log–log slope of the cooperative ``R̂(T)`` against ``V`` (fitted for ``V ≥ 4``) lies in
  ``[−0.7, −0.4]`` (``−0.5`` up to log factors; our tolerance), independent LinUCB's in
  ``[−0.1, 0.1]``. On a complete graph ``C(v) = N_1(v) = 𝒱``, so Coop- and Eager-KernelUCB keep the same
  data and are the same algorithm; Eager is run (its runs also feed C9), Dist separately.
* **C2** (Theorem 1, ``√χ̄(G_γ)``): path graph ``V = 32``, one cluster, ``γ`` on a grid
  (``χ̄(G_γ) = ⌈V/(γ+1)⌉``, the greedy cover is exact on these interval graphs): the correlation of
  Coop's mean ``R̂(T)`` with ``√(|𝐂|/V)`` across the grid, bootstrapped over runs, is above 0.8.
* **C3** (Theorem 2, ``α`` vs ``χ̄``): the fixed-arm fully-cooperative environment on complements of
  Mycielski graphs (``α(G_1) = 2 ≪ χ̄(G_1) = k``): Dist-KernelUCB (``copy_arm``, Alg. 3 l.10) has lower
  ``R̂(T)`` than Coop-KernelUCB, paired over runs.
* **C4** (Corollary 1 / Remark 5, heterogeneity ``Υ_z = rank 𝐊_z``): complete graph ``V = 32`` split
  into ``n_c`` equal clusters: ``R̂(T)`` of Coop increases with ``n_c`` (log–log slope > 0, and at most
  linear: ≤ 1), and at ``n_c = V`` equals independent LinUCB (ratio in ``[0.95, 1.05]``; with
  ``K_z = I`` no data from others carries weight).
* **C5** (regret vs T): the Figure-1 linear ER panel at a small size with the estimated ``K̂_z``:
  log–log slope of ``R̂(t)`` on ``t ∈ [T/4, T]`` ≤ 0.65 for Coop, Dist and Eager (``√T`` up to log
  factors and burn-in) and ≥ 0.85 for Naive Cooperation (biased, linear regret).
* **C6** (Lemma 3, ``Σ_{t=γ}^T Σ_{v∈C} σ²_{v,t−1}(x̃_{v,t}) ≤ γ|C|B + max(1, 1/λ) log det(I + K_{C,T}/λ)``,
  ``B = sup K = 1``): (a) in Coop-KernelUCB runs (oracle ``K_z ≡ 1``, path graph ``c6_V``, ``γ`` in
  ``c6_gammas``) the left side is recomputed from the agents' chosen contexts with each agent's own
  visibility (``s ≤ t − τ(u,v)``, sources in its clique; primal form ``σ² = λ xᵀA⁻¹x``,
  ``A = λI + Σ x xᵀ``), and for every clique LHS ≤ RHS; (b) the adversarial probe (step (15) of the proof bounds
the variance at ``x̃_{v,t}`` by one at another point, ``x̃_{v,t−γ}``):
  the lemma is stated for any actions, so take a clique of ``m = probe_m`` agents on a complete graph
  (``γ = 1``) that all pick the same **new** basis direction of ``R^{probe_D}`` every round — each
  ``σ² = 1``, LHS ``= D m``, RHS ``= m + D log(1 + m)`` — the check records whether the stated bound
  survives (it cannot for ``D m > m + D log(1+m)``: the proof's step (15) swaps the evaluation point).
* **C7** (Lemma 4): random points on ``S^{d−1}`` with ``n_c`` cluster labels, ``K = 𝐊_z ⊙ 𝐊_x``
  (``𝐊_z`` = same-cluster indicator, linear ``K_x``): ``log det(I + K/λ) ≤ 2Υ_z(Υ^x_N + log N)`` for
  every ``(n_c, N)``, ``Υ^x_N`` the greedy (uncertainty-sampling) maximiser of ``log det(I + 𝐊_x/λ)``
  over ``N`` points of a candidate pool (a lower bound on the true maximum, so the check is
  conservative); and the gain grows with ``n_c``, at most linearly (``G(n_c)/G(1) ≤ n_c``).
* **C8** (Lemma 2, MMD consistency): agents with context laws ``N(m_u, s²I)``, RBF ``k_P`` of
  bandwidth ℓ; the exact normalised V-statistic ``MMD`` (Eq. 12 with its ``1/n²`` factors) after ``t``
  samples per agent against the closed form
  ``‖Ψ_u − Ψ_v‖² = 2(ℓ²/(ℓ²+2s²))^{d/2}(1 − exp(−‖m_u−m_v‖²/(2(ℓ²+2s²))))``;
  ``max_{u,v} |log K̂_z − log K_z| = max |MMD̂ − MMD|/(2σ_z²)`` has log–log slope in
  ``[−0.65, −0.35]`` against ``t`` (``O(1/√t)``), one slope per run.
* **C9** (the Eager conjecture ``O(√((γ + α(G_γ))T/V))``, Sec. 7): across the graphs of C1 and C2
  (complete ``V ≥ 2``: ``γ = α = 1``; path powers: ``α = ⌈V/(γ+1)⌉``) the correlation of Eager's
  mean ``R̂(T)`` with ``√((γ + α)/V)`` is positive (bootstrap interval above 0). The paper states the
  conjecture only qualitatively.
* **C10** (communication): in every C2 run of Coop and Eager, the observation deliveries per round
  (scalars charged / ``(d + 3)``) equal ``Σ_v (|N_γ(v)| − 1) = Σ_{k=1}^{γ} 2(V − k)`` (path graph, by
  hand) from round ``γ − 1`` on, are the same for both algorithms (filtering happens on receipt), and
  Coop's accepted deliveries equal ``Σ_t #{(u,v) same clique, 1 ≤ d(u,v) ≤ min(γ, t+1)}``.

Choices where the paper is silent: those of Figure 1 (:mod:`bandits.experiments.coop_kernelucb`),
plus the grids, horizons and thresholds above (ours: the paper states no empirical check).

This module holds the parameters, runs and tables; the claims are in
:mod:`bandits.experiments.coop_theory_claims`, the figure in :mod:`bandits.experiments.coop_theory_plots`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..runner import sweep
from .common import mode_params
from ..validation import ParameterError, check, each, ge, integer, real, rule

__all__ = ["theory_params", "validate_theory", "run_theory", "TheoryResults", "c6_lemma3",
           "lemma3_sides", "c7_lemma4", "c8_mmd", "mmd_closed_form"]


_FULL = dict(T=200, n_runs=10, V_grid=[1, 2, 4, 8, 16, 32], path_V=32, gammas=[1, 2, 4, 8, 16, 31],
             hetero_V=32, nc_grid=[1, 2, 4, 8, 16, 32], myc_k=[5, 6], c5_V=40, c5_T=300, eta=1.0, lam=1.0,
             noise_std=0.1, K=8, d=10, c7_N=[200, 800], c7_nc=[1, 2, 4, 8, 16], c7_pool=2000,
             mmd_t_max=10_000, mmd_agents=3, mmd_d=2, mmd_s=1.0, mmd_ell=1.0, mmd_sigma_z=1.0, mmd_points=12,
             c6_V=16, c6_gammas=[1, 2, 4], probe_m=10, probe_D=10)
_QUICK = dict(_FULL, T=100, n_runs=4, V_grid=[1, 2, 4, 8, 16, 32], hetero_V=16, nc_grid=[1, 2, 4, 8, 16], c5_V=32,
              c5_T=120, c7_N=[200, 800], c7_pool=1000, mmd_t_max=4096, mmd_points=10)


def theory_params(mode: str = "quick", **overrides) -> dict:
    """The C1–C10 parameters of ``mode`` ("quick" or "full"), with overrides (``None`` keeps)."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "Coop-KernelUCB theory")
    validate_theory(p)
    return p




def validate_theory(p: dict) -> None:
    for k in ("T", "n_runs", "path_V", "hetero_V", "c5_V", "c5_T", "K", "d", "c7_pool", "mmd_t_max",
              "mmd_agents", "mmd_d", "mmd_points", "c6_V", "probe_m", "probe_D"):
        check(k, p[k], integer(ge=1))
    for k in ("V_grid", "gammas", "nc_grid", "c7_N", "c7_nc", "c6_gammas"):
        check(k, p[k], each(integer(ge=1)))
    check("myc_k", p["myc_k"], each(integer(ge=2)))
    check("gammas", p["gammas"], rule(lambda g: max(g) < p["path_V"], f"values < path_V = {p['path_V']}"))
    check("c6_gammas", p["c6_gammas"], rule(lambda g: max(g) < p["c6_V"], f"values < c6_V = {p['c6_V']}"))
    check("nc_grid", p["nc_grid"], rule(lambda g: max(g) <= p["hetero_V"], f"values <= hetero_V = {p['hetero_V']}"))
    check("mmd_agents", p["mmd_agents"], ge(2))
    check("mmd_t_max", p["mmd_t_max"], ge(64))
    for k in ("eta", "lam", "mmd_s", "mmd_ell", "mmd_sigma_z"):
        check(k, p[k], real(gt=0))
    check("noise_std", p["noise_std"], ge(0))


# ------------------------------------------------------------------------------ run specifications
def _env(p, **kw) -> dict:
    base = {"kind": "coop", "setup": "linear", "K": p["K"], "d": p["d"], "noise_std": p["noise_std"],
            "cluster_mode": "equal", "n_clusters": 1, "min_clusters": 1}
    base.update(kw)
    return base


def _alg(p, oracle=True, **kw) -> dict:
    prm = {"kernel": {"name": "linear"}, "eta": p["eta"], "lam": p["lam"], "R": p["noise_std"]}
    if oracle:
        prm["kz"] = "oracle"
    prm.update(kw)
    return prm


def theory_tasks(p: dict) -> tuple[list[tuple[dict, int]], list[dict]]:
    """``(config, rep)`` tasks of the regret checks C1–C5 (C9, C10 reuse them) and their labels."""
    from ..envs.coop import coop_network

    tasks, labels = [], []

    def add(check, cfg_env, alg, params, T, **lab):
        N = coop_network(cfg_env).V
        for rep in range(p["n_runs"]):
            cfg = {"loop": "regret", "env": cfg_env, "env_seed": rep, "algorithm": alg, "params": params,
                   "N": N, "T": T}
            tasks.append((cfg, rep))
            labels.append({"check": check, "rep": rep, "V": N, **lab})

    T = p["T"]
    for V in p["V_grid"]:
        e = _env(p, graph="complete", V=V)
        add("C1", e, "Eager-KernelUCB", _alg(p), T, method="Eager-KernelUCB", x=V)
        add("C1", e, "Dist-KernelUCB", _alg(p), T, method="Dist-KernelUCB", x=V)
        add("C1", e, "Ind-LinUCB", _alg(p, oracle=False), T, method="LinUCB", x=V)
    for g in p["gammas"]:
        e = _env(p, graph="path", V=p["path_V"], gamma=g)
        add("C2", e, "Coop-KernelUCB", _alg(p), T, method="Coop-KernelUCB", x=g)
        add("C2", e, "Eager-KernelUCB", _alg(p), T, method="Eager-KernelUCB", x=g)
    for k in p["myc_k"]:
        e = {"kind": "coop", "setup": "fixed", "graph": "mycielski-complement", "k": k, "K": p["K"], "d": p["d"],
             "noise_std": p["noise_std"], "kernel": "linear"}
        add("C3", e, "Coop-KernelUCB", _alg(p), T, method="Coop-KernelUCB", x=k)
        add("C3", e, "Dist-KernelUCB", _alg(p, peripheral_mode="copy_arm"), T, method="Dist-KernelUCB", x=k)
    for nc in p["nc_grid"]:
        e = _env(p, graph="complete", V=p["hetero_V"], n_clusters=nc)
        add("C4", e, "Coop-KernelUCB", _alg(p), T, method="Coop-KernelUCB", x=nc)
    # independent LinUCB on the n_c = V bandit (Remark 5: K_z = I, nothing to share)
    add("C4", _env(p, graph="complete", V=p["hetero_V"], n_clusters=p["hetero_V"]), "Ind-LinUCB",
        _alg(p, oracle=False), T, method="LinUCB", x=0)
    e = {"kind": "coop", "setup": "linear", "graph": "er", "V": p["c5_V"], "p": 0.7, "K": p["K"], "d": p["d"],
         "noise_std": p["noise_std"], "graph_seed": 0, "min_clusters": 2}
    for m, alg in (("Coop-KernelUCB", "Coop-KernelUCB"), ("Dist-KernelUCB", "Dist-KernelUCB"),
                   ("Eager-KernelUCB", "Eager-KernelUCB"), ("Naive Cooperation", "Naive-LinUCB"),
                   ("LinUCB", "Ind-LinUCB")):
        add("C5", e, alg, _alg(p, oracle=False, r_max=5), p["c5_T"], method=m, x=0)
    return tasks, labels


# ------------------------------------------------------------------------------ C6 (Lemma 3)
def lemma3_sides(X: np.ndarray, dist: np.ndarray, clique: np.ndarray, gamma: int, lam: float,
                 extra_delay: int = 0) -> tuple[float, float]:
    r"""Both sides of Lemma 3 for one clique, linear ``K_x`` and ``K_z ≡ 1`` (``B = 1``).

    Args:
        X: (T, V, d) chosen contexts ``x_{v,t}`` (round 0 = the paper's t = 1).
        dist: (V, V) hop distances; clique: the agents of ``C`` (every pair within ``γ`` hops).
        gamma, lam: ``γ`` and λ.

    Returns:
        ``(LHS, RHS)``: ``Σ_{t=γ}^{T} Σ_{v∈C} σ²_{v,t−1}(x_{v,t})`` with agent ``v`` holding
        ``{(u,s): u ∈ C, s ≤ t − τ(u,v)}``, ``τ = max(1, d) + extra_delay``, ``σ²(x) = λ xᵀA⁻¹x``,
        ``A = λI + Σ x xᵀ`` (the dual variance in primal form); and
        ``γ|C| + max(1, 1/λ) log det(I + K_{C,T}/λ)`` with ``log det(I + K_{C,T}/λ) =
        log det(I_d + Σ_{u∈C, s} x xᵀ/λ)`` (Sylvester). Hand-written: a few lines of numpy on
        cumulative per-source statistics.
    """
    T, _, d = X.shape
    C = np.asarray(clique, dtype=np.int64)
    Xc = X[:, C, :]  # (T, m, d)
    cum = np.cumsum(np.einsum("tmd,tme->tmde", Xc, Xc), axis=0)  # M_u(s): rounds 0..s
    tau = np.maximum(dist[np.ix_(C, C)], 1) + int(extra_delay)  # tau[v, u]
    lhs = 0.0
    for t in range(gamma - 1, T):
        for i in range(C.size):
            A = lam * np.eye(d)
            for j in range(C.size):
                s = t - tau[i, j]
                if s >= 0:
                    A += cum[s, j]
            x = Xc[t, i]
            lhs += lam * float(x @ np.linalg.solve(A, x))
    G = np.einsum("tmd,tme->de", Xc, Xc)
    rhs = gamma * C.size + max(1.0, 1.0 / lam) * float(np.linalg.slogdet(np.eye(d) + G / lam)[1])
    return lhs, rhs


def c6_lemma3(p: dict, seed: int = 0):
    """Lemma 3 check data: one row per (γ, run, clique) of Coop-KernelUCB runs (the run's own chosen
    contexts; oracle ``K_z ≡ 1``, linear, path graph ``c6_V``), plus the adversarial probe rows
    (``gamma = 1``, ``run = -1``): ``probe_m`` agents on a complete graph all choosing the same new
    basis direction of ``R^{probe_D}`` each round, for ``probe_D`` rounds."""
    import pandas as pd

    from ..envs.coop import coop_network
    from ..runner import run_regret_cell

    def chosen_contexts(ctx):  # the run's own chosen contexts x_{v,t} (T, V, d), for Lemma 3
        return {"X": ctx.policy.Xhist}, {}

    rows, T = [], p["T"]
    for g in p["c6_gammas"]:
        spec = _env(p, graph="path", V=p["c6_V"], gamma=g)
        for rep in range(p["n_runs"]):
            network = coop_network(spec, rep)  # the run's graph (the environment's, env_seed = rep)
            cfg = {"loop": "regret", "env": spec, "env_seed": rep, "algorithm": "Coop-KernelUCB", "N": network.V,
                   "T": T, "params": _alg(p)}
            X = run_regret_cell(cfg, seed, rep, collect=chosen_contexts)["arrays"]["X"]
            for c, members in enumerate(network.cliques):
                lhs, rhs = lemma3_sides(X, network.dist, members, g, p["lam"])
                rows.append({"kind": "coop run", "gamma": g, "run": rep, "clique": c, "size": int(members.size),
                             "lhs": lhs, "rhs": rhs, "ratio": lhs / rhs})
    m, D = p["probe_m"], p["probe_D"]
    X = np.zeros((D, m, D))
    X[np.arange(D), :, np.arange(D)] = 1.0  # round t: every agent plays e_t
    dist = 1 - np.eye(m, dtype=np.int64)
    lhs, rhs = lemma3_sides(X, dist, np.arange(m), 1, p["lam"])
    rows.append({"kind": "adversarial probe", "gamma": 1, "run": -1, "clique": 0, "size": m, "lhs": lhs, "rhs": rhs,
                 "ratio": lhs / rhs})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ C7, C8 (no bandit runs)
def _greedy_info_gain(pool: np.ndarray, n: int, lam: float) -> float:
    """``log det(I + 𝐊_x/λ)`` of ``n`` points picked greedily from ``pool`` (linear ``K_x``), each the
    point of largest posterior variance (uncertainty sampling: the standard greedy for the maximum
    information gain, within ``1 − 1/e`` of the optimum by submodularity). Rank-one updates of
    ``A = λI + Σ x xᵀ``; the gain is ``Σ_i log(1 + σ²_i/λ)`` with ``σ²_i = λ xᵢᵀA⁻¹xᵢ``."""
    d = pool.shape[1]
    Ainv = np.eye(d) / lam
    gain = 0.0
    for _ in range(n):
        q = np.einsum("nd,de,ne->n", pool, Ainv, pool)  # x^T A^-1 x
        i = int(np.argmax(q))
        gain += math.log1p(q[i])
        u = Ainv @ pool[i]
        Ainv -= np.outer(u, u) / (1.0 + q[i])
    return gain


def c7_lemma4(p: dict, seed: int = 0):
    """Lemma 4 check data: one row per ``(N, n_c)``: ``G = log det(I + (𝐊_z ⊙ 𝐊_x)/λ)``, ``G(n_c)/G(1)``,
    the greedy ``Υ^x_N`` and the bound ``2 n_c (Υ^x_N + log N)``. Points uniform on ``S^{d−1}``, labels
    ``i mod n_c`` (equal clusters), ``𝐊_z`` the same-cluster indicator (``rank 𝐊_z = n_c = Υ_z``)."""
    import pandas as pd

    ss = np.random.SeedSequence(seed, spawn_key=(7,))
    rng = np.random.default_rng(ss)
    d, lam = p["d"], p["lam"]
    pool = rng.standard_normal((p["c7_pool"], d))
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    rows = []
    for N in p["c7_N"]:
        X = rng.standard_normal((N, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        Kx = X @ X.T
        ups = max(_greedy_info_gain(pool, N, lam), float(np.linalg.slogdet(np.eye(N) + Kx / lam)[1]))
        g1 = None
        for nc in p["c7_nc"]:
            lab = np.arange(N) % nc
            Kz = (lab[:, None] == lab[None, :]).astype(float)
            G = float(np.linalg.slogdet(np.eye(N) + Kz * Kx / lam)[1])
            g1 = G if nc == 1 else g1
            rows.append({"N": N, "n_c": nc, "logdet": G, "ratio": G / g1 if g1 else float("nan"),
                         "Upsilon_x": ups, "bound": 2 * nc * (ups + math.log(N))})
    return pd.DataFrame(rows)


def mmd_closed_form(means: np.ndarray, s: float, ell: float) -> np.ndarray:
    """``(n, n)`` MMD (unsquared) between ``N(m_u, s²I_d)`` laws under ``exp(−‖x−x'‖²/(2ℓ²))`` (check C8)."""
    d = means.shape[1]
    c = (ell**2 / (ell**2 + 2 * s**2)) ** (d / 2)
    sq = ((means[:, None, :] - means[None, :, :]) ** 2).sum(-1)
    return np.sqrt(np.maximum(2 * c * (1 - np.exp(-sq / (2 * (ell**2 + 2 * s**2)))), 0.0))


def c8_mmd(p: dict, seed: int = 0, block: int = 1024):
    """Lemma 2 check data: one row per ``(rep, t)`` with ``err = max_{u,v} |log K̂_z − log K_z|``.

    The exact normalised V-statistic (Eq. 12 with ``1/t²``) on the first ``t`` samples of each agent,
    at log-spaced ``t`` up to ``mmd_t_max``, from cumulative Gram sums updated block by block (each
    kernel value computed once; O(t²) per pair in all). Means ``m_u`` uniform on the unit sphere.
    """
    import pandas as pd

    from ..kernels import RBF

    n, d, s, ell, sz = p["mmd_agents"], p["mmd_d"], p["mmd_s"], p["mmd_ell"], p["mmd_sigma_z"]
    k = RBF(ell)
    ts = np.unique(np.round(np.geomspace(16, p["mmd_t_max"], p["mmd_points"])).astype(int))
    rows = []
    for rep, child in enumerate(np.random.SeedSequence(seed, spawn_key=(8,)).spawn(p["n_runs"])):
        rng = np.random.default_rng(child)
        m = rng.standard_normal((n, d))
        m /= np.linalg.norm(m, axis=1, keepdims=True)
        X = m[:, None, :] + s * rng.standard_normal((n, int(ts[-1]), d))
        true = mmd_closed_form(m, s, ell)
        S = np.zeros((n, n))  # S[u, v] = sum_{i, j < t} k(x_ui, x_vj)
        prev = 0
        iu = np.triu_indices(n)
        for t in ts:
            for a, b in zip(*iu):
                add = 0.0
                for j0 in range(prev, t, block):  # new columns j in [prev, t) against rows i < t
                    j1 = min(j0 + block, t)
                    add += k(X[a, :t], X[b, j0:j1]).sum() + k(X[a, j0:j1], X[b, :prev]).sum()
                S[a, b] += add
                S[b, a] = S[a, b]
            prev = t
            dg = np.diag(S) / t**2
            mmd2 = np.maximum(dg[:, None] + dg[None, :] - 2 * S / t**2, 0.0)
            err = np.abs(np.sqrt(mmd2) - true) / (2 * sz**2)
            rows.append({"rep": rep, "t": int(t), "err": float(err[np.triu_indices(n, 1)].max())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ running
@dataclass
class TheoryResults:
    params: dict
    runs: object  # DataFrame: check, method, x, V, rep, R_T, info fields, comm
    curves: object  # DataFrame: C5 per-round R̂(t): method, rep, t, regret
    comm: dict  # C10: (method, gamma, rep) -> observation deliveries per round (array)
    c6: object
    c7: object
    c8: object
    networks: dict  # (check, x) -> network stats
    cached: int
    computed: int


def run_theory(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir: str | None = None,
               progress: bool = True) -> TheoryResults:
    import pandas as pd

    from ..envs.coop import coop_network

    tasks, labels = theory_tasks(p)
    results, stats = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                           desc="Coop-KernelUCB theory")
    run_rows, curve_rows, comm, nets = [], [], {}, {}
    msg = p["d"] + 3
    for (cfg, _), lab, res in zip(tasks, labels, results):
        reg = np.asarray(res["arrays"]["regret"], dtype=float)
        R = np.cumsum(reg) / lab["V"]
        info = res["meta"]["info"]
        run_rows.append({**lab, "R_T": R[-1], "accepted_deliveries": info.get("accepted_deliveries"),
                         "wall_time": res["meta"]["wall_time"], "cpu_time": res["meta"].get("cpu_time")})
        if lab["check"] == "C5":
            curve_rows.append(pd.DataFrame({"method": lab["method"], "rep": lab["rep"],
                                            "t": np.arange(1, R.size + 1), "regret": R}))
        if lab["check"] == "C2":
            by_kind = res["meta"]["comm_by_kind"]
            comm[(lab["method"], lab["x"], lab["rep"])] = {
                "per_round": np.asarray(res["arrays"]["comm_up"], dtype=float) / msg, "by_kind": by_kind}
        key = (lab["check"], lab["x"])
        if key not in nets:
            nets[key] = {**coop_network(cfg["env"]).stats(), "clique_of": coop_network(cfg["env"]).clique_of}
    return TheoryResults(p, pd.DataFrame(run_rows), pd.concat(curve_rows, ignore_index=True) if curve_rows else None,
                         comm, c6_lemma3(p, seed), c7_lemma4(p, seed), c8_mmd(p, seed), nets, stats.cached,
                         stats.computed)


# ------------------------------------------------------------------------------ what the claims and the figure read
def _per_x(runs, check, method):
    """``(xs, Y)`` with ``Y[r, i]`` = R̂(T) of run r at grid value xs[i]."""
    r = runs[(runs.check == check) & (runs.method == method)]
    piv = r.pivot(index="rep", columns="x", values="R_T").sort_index(axis=1)
    return piv.columns.to_numpy(float), piv.to_numpy(float)
