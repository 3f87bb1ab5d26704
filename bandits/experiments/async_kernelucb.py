"""Async-KernelUCB (Li, Wang, Wang & Wang, ICLR 2023): Figure 2's parameters, tuning and runs.

Figure 2: cumulative regret and communication vs time for Async-KernelUCB, Approx-DisKernelUCB,
OneKernelUCB, NKernelUCB, FedGLB-UCB, DisLinUCB and FedLinUCB on six environments: synthetic f1,
f2 (d = 20, 20 arms uniform in the unit ball each step), UCI MagicTelescope and Mushroom (k-means
arms, Bernoulli rewards), MovieLens and Yelp (1 positive + 19 negative arms, d = 20). Paper: T = 10⁴,
N = 100 clients, one client active per step, 10 runs; a grid over the kernel width γ_k ∈ {0.1, 1, 4}
and α ∈ {0.1, 1, 4} for the kernel methods and over α for the linear ones.

Choices where the paper is silent (choices of this package): λ = 1; Async D = 1 and q = 1; the client
schedule i.i.d. uniform; Gaussian noise 0.1 on the synthetic functions; θ* and the k-means arms
drawn per run (``env_seed = run index``); regret from noise-free means; Approx-DisKernelUCB with
q̄ = q and, by default (``approx_trigger="var_sum"``), the project's variance-sum trigger
Σ_{s∈ΔD_n} σ̃²_last(x_s) > D with the same D as Async-KernelUCB (the event rule of the proposed
method, Eq. 4; the DUETS figure uses the same trigger). A reconstruction of this package, the
DisLinUCB-style trigger (t − t_last)·Σ log(1 + σ̃²) > D_sync with D_sync = approx_c·T/(N d log T)
(borrowed from the authors' linear-bandit simulator), is ``approx_trigger="dislinucb_logdet"``:
the paper does not state it for Approx-DisKernelUCB, and at N = 100 it is
below log 2, the most one point adds when t − t_last = 1 (σ̃² ≤ k(x,x)/λ = 1), so it synchronises
at every step (1000 syncs in 1000 steps at T = 1000; O(T²|S|²) work, and the communication it
reports is an artefact of the threshold, 31× the variance-sum trigger's at the same regret on f1,
T = 1000). OneKernelUCB broadcasts each new point to every client ((d+1)·N scalars per step);
selection of (γ, α) per (algorithm, environment) on tuning runs with their own seeds, by the rule
of :func:`select_settings` (fixed before the runs; one common γ for every kernel method of
an environment where the tuning runs do not separate the widths). MovieLens is ml-latest-small, not ML-25M. ``device="auto"``
runs OneKernelUCB's O(t²K) solves in torch on a GPU when one is present (numpy otherwise).

Full mode (measured costs in the README). **Tuning** (the paper's grid search, §5):
the whole grid on ``tune_runs = 3`` runs of ``tune_T = 2000`` steps (seeds 100+, apart from the
reported runs; 2 runs of T = 1000 are too few and too short to separate settings),
then :func:`select_settings`' rule, fixed before the runs: a kernel method's γ is kept only when it
beats every other γ in a paired comparison over the tuning runs; where any kernel method's γ is
undecided, every kernel method of that environment gets one common γ (the tuning table
``tuning_grid.csv`` and the ``selected`` table's ``gamma_rule`` say which). Methods with a single
grid point are not tuned. The selected settings run at the paper's T = 10⁴, N = 100, 10 runs, except
``heavy_runs``: OneKernelUCB runs 3 of the 10 on the fresh-context environments
(:data:`HEAVY_ENVS`; its exact posterior on K = 20 fresh arms is O(t²K) a step in float64, ≈ 350 s
of CPU a run, see the budget below; ``device="cuda"`` makes it ≈ 40 s;
``heavy_runs={"OneKernelUCB": 10}`` or ``{}`` runs the paper's 10, e.g. on a cluster). Approx-DisKernelUCB runs the paper's 10 runs
everywhere; its sync path is level-3 (blocked) for it
(:mod:`bandits.algorithms.dis_kernel_ucb`). Figure titles and claims say "n of the paper's 10
runs" where a method has fewer, and the paired claims pair the runs both methods have (the first
n; every run r shares environment and noise streams).
A Nyström setting whose tuning runs kept more than ``max_dict_frac`` (0.6) of their points in the
dictionary is not selected for the long runs (:func:`select_settings`: at γ_k = 4 on f1 the
dictionaries keep 64–92 % of the points, which at T = 10⁴ needs ~70 GB for Async-KernelUCB's N
stale factors); the tuning table keeps those results and ``selected`` says what was excluded and why.

**Communication in the open**: :func:`comm_table` gives every method's total scalars,
OneKernelUCB's raw-point broadcast included ((d+1)·N a step) and each method's ratio to it, the
dictionary size, and Async-KernelUCB's warm-up (pulls made on the prior before a client's first
exchange: at D = 1 and k(x, x) = λ two per client, since each prior pull adds σ̃² = 1 to the
trigger sum, and their regret); :func:`run_gamma_sensitivity` / :func:`plot_gamma_sensitivity`
put regret against communication for γ ∈ ``gsens_gammas`` and q ∈ ``gsens_q`` on f1 and
MagicTelescope (``gsens_runs`` runs at Figure 2's size; a setting too dense to run at T = 10⁴ is
represented by its tuning runs, marked). Random play's expected regret (:func:`random_reference`)
is on every regret panel. Mushroom (UCI, one-hot, d = 117): 7–11 of the 20 k-means arms have mean
reward exactly 1 (10 environment draws) and the largest-norm arm is always one of them, so a
linear method's first choice (the widest confidence width under the prior) is optimal and its
regret is 0; Async-KernelUCB's ≈ 80–93 is its warm-up (200 prior pulls × ≈ 0.45, random play's
regret per step), after which its regret is 0 (run 0 at full size: 80.5 of 80.5 on the prior).

The threshold-sensitivity table (not a claim) uses the first ``sens_runs`` (3) runs in full mode, on
``sens_envs`` = Magic and Mushroom, the two environments where a D = 1 comparison failed in a smaller
full run (f1 is left out for its cost: Async-KernelUCB at D = 1/N² costs ~2.5× its D = 1 run there at
T = 10⁴, measured to t = 4000, so f1 alone would be ≈ 1 600 s of CPU of the table's ≈ 1 650; ``sens_envs=None`` runs all six, each
fresh-context environment ≈ 1 000–1 700 s of CPU more).
Quick mode runs 3 runs (the fewest for which the claims' paired intervals are defined), with a small
tuning (γ ∈ {0.1, 1}, α = 1, 3 runs of T = 500) and the γ/q panel at 2 runs.

**Budget of full mode.** ``make figures`` must finish on 2 cores in 12 h; this notebook's share is
≈ 3–3.5 h (2 workers). CPU seconds (``time.process_time``, one BLAS thread, on the 2-core machine loaded
by other jobs, so CPU and not wall time) per run at T = 10⁴, N = 100: OneKernelUCB ≈ 350 (its step's CPU
time at t = 2 500–10⁴, summed over the fitted power law; 99 ms a step at t = 10⁴); Async-KernelUCB on f1
at γ = 1 ≈ 144 (a partial run had used 129 s of CPU under a profiler); Approx-DisKernelUCB on f1 ≈ 221.
Tuning runs on f1 (T = 2000, α = 1): Async 28.9 / 3.4 / 0.4 s at γ = 4 / 1 / 0.1, Approx-DisKernelUCB
22.7 / 3.0 / 0.4, OneKernelUCB 4.9, NKernelUCB 0.3. Other environments and methods: these CPU times
scaled by an earlier full run's wall-time ratios between environments, and that run's wall times
themselves for the linear methods and NKernelUCB (an upper bound: its cores were shared). Projected
CPU seconds:

=========================================  ==================
part                                       projected CPU s
=========================================  ==================
Figure 2, OneKernelUCB                     4 250 (3 of 10)
Figure 2, Approx-DisKernelUCB (10 runs)    6 390
Figure 2, Async-KernelUCB (10 runs)        2 890
Figure 2, the other four methods           2 050
tuning (γ, α grid, 3 runs of T = 2000)     5 170
  of which γ = 4 Nyström runs              ≈ 2 350
D-sensitivity table (3 runs)               ≈ 200 (Magic, Mushroom)
γ/q panel (f1, Magic; 3 runs)              ≈ 550
total                                      ≈ 21 500 s
on 2 cores (2 workers)                     3.0 h (3.4 h +15 %)
=========================================  ==================

Figure 2 by environment: f1 4 780, f2 5 060, MovieLens 2 540, Yelp 2 660, Magic 110, Mushroom 440.
"+15 %": an allowance for two workers sharing the memory bus (not measured). Wall times of runs on
the shared machine overstate the cost (OneKernelUCB 508–933 s a run against ≈ 350 s of CPU;
Async-KernelUCB 410 s against ≈ 144 s). The γ/q panel's f1 points at γ = 1 are Figure 2's cached runs
when the tuning keeps γ = 1 on f1 (another γ costs ≈ +1 100 s). The server's m × m aggregate Ã_k is
formed only when read (:class:`bandits.algorithms.AsyncKernelUCB`): 4–15 % less of Async's CPU on runs
of T = 1 500–3 000 than forming it at every exchange, with the same results to the last bit
(``bandits.bench.bench_async_exchange``). Levers left, in CPU seconds: Approx-DisKernelUCB at 5 of the
paper's 10 runs on f1 and f2 (−2 500), OneKernelUCB with ``device="cuda"`` (≈ −3 800 with a GPU), the
tuning's γ = 4 Nyström runs (≈ 2 350; they are excluded by rule 1 but their results are the γ/q
panel's stand-ins).

The claims are in :mod:`bandits.experiments.async_kernelucb_claims` and the figures in
:mod:`bandits.experiments.async_kernelucb_plots` (both left out of the run cache's code fingerprint;
this module imports neither). Length (≈ 620 lines, 110 of them this docstring): the parameters, tuning
rule, runs and result tables share the tasks and the thresholds stated here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..runner import sweep
from .common import mode_params, resolve_device_param
from ..stats import paired_t_interval, verdict_below
from ..validation import ParameterError, check, each, fail, integer, number, one_of, optional, real, rule, subset_of

__all__ = ["ENVS", "METHODS", "HEAVY_ENVS", "PAPER_RUNS", "MUCH_SMALLER", "NEAR_RANDOM", "async_params",
           "method_runs", "runs_text", "fig2_tasks", "select_settings", "paired_t_verdict", "run_fig2",
           "run_D_sensitivity", "random_reference", "comm_table", "run_gamma_sensitivity"]

ENVS = ("f1", "f2", "magic", "mushroom", "movielens", "yelp")
ENV_TITLES = {"f1": "Synthetic f1", "f2": "Synthetic f2", "magic": "MagicTelescope", "mushroom": "Mushroom",
              "movielens": "MovieLens (latest-small)", "yelp": "Yelp"}
KERNEL_METHODS = ("Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB", "NKernelUCB")
LINEAR_METHODS = ("FedGLB-UCB", "DisLinUCB", "FedLinUCB")
METHODS = KERNEL_METHODS + LINEAR_METHODS
ENV_DIM = {"f1": 20, "f2": 20, "magic": 10, "mushroom": 117, "movielens": 20, "yelp": 20}

NYSTROM_METHODS = ("Async-KernelUCB", "Approx-DisKernelUCB")
HEAVY_ENVS = ("f1", "f2", "movielens", "yelp")  # fresh contexts every step: the kernel models grow with t
PAPER_RUNS = 10  # "averaged over 10 runs" (§5.2 / Figure 2 of the paper)
#: "much smaller communication cost" (§5.2), fixed before the runs: a ratio of mean C(T) at most this
MUCH_SMALLER = 0.5
#: a panel is marked "near random play" when every method's mean R(T) is at least this share of random play's
NEAR_RANDOM = 0.5
RANDOM = "Random play (expected)"

_FULL = dict(T=10000, N=100, n_runs=10, gammas=[0.1, 1.0, 4.0], alphas=[0.1, 1.0, 4.0], tune_T=2000,
             tune_runs=3, envs=list(ENVS), methods=list(METHODS), lam=1.0, D=1.0, q=1.0, noise_std=0.1,
             K=20, approx_c=1.0, approx_trigger="var_sum", device="auto",
             heavy_runs={"OneKernelUCB": 3}, max_dict_frac=0.6, sens_runs=3,
             sens_envs=["magic", "mushroom"], gsens_envs=["f1", "magic"], gsens_gammas=[0.1, 1.0, 4.0],
             gsens_q=[0.25, 0.5], gsens_runs=3)
_QUICK = dict(_FULL, T=1000, N=20, n_runs=3, gammas=[0.1, 1.0], alphas=[1.0], tune_T=500, tune_runs=3,
              heavy_runs={}, max_dict_frac=None, sens_runs=None, sens_envs=None, gsens_runs=2, gsens_q=[0.5, 2.0])


def async_params(mode: str = "quick", **overrides) -> dict:
    p = mode_params(mode, _FULL, _QUICK, overrides, "Async-KernelUCB")
    for k in ("T", "N", "n_runs", "K"):
        check(k, p[k], integer(ge=1))
    check("tune_runs", p["tune_runs"], integer(ge=0))
    if p["tune_T"] is not None:
        check("tune_T", p["tune_T"], integer(ge=1))
    for k in ("lam", "D", "q", "approx_c"):
        check(k, p[k], number(gt=0))
    check("noise_std", p["noise_std"], number())
    check("approx_trigger", p["approx_trigger"], one_of("var_sum", "dislinucb_logdet"))
    resolve_device_param(p, ("auto", "cpu", "torch-cpu", "cuda"))
    check("envs", p["envs"], subset_of(*ENVS))
    check("methods", p["methods"], subset_of(*METHODS))
    for k in ("gammas", "alphas"):
        check(k, p[k], each(real(gt=0)))
    check("heavy_runs", p["heavy_runs"], rule(
        lambda hr: isinstance(hr, dict) and all(m in METHODS for m in hr)
        and all(not isinstance(v, bool) and isinstance(v, int) and v >= 1 for v in hr.values()),
        f"a dict {{method: runs >= 1}} with methods from {list(METHODS)}"))
    p["heavy_runs"] = dict(p["heavy_runs"])
    if p["sens_runs"] is not None:
        check("sens_runs", p["sens_runs"], integer(ge=1))
    if p["sens_envs"] is not None:
        check("sens_envs", p["sens_envs"], subset_of(*ENVS))
    check("gsens_envs", p["gsens_envs"], subset_of(*ENVS))
    check("gsens_runs", p["gsens_runs"], integer(ge=1))
    positive = real(gt=0)
    for k in ("gsens_gammas", "gsens_q"):
        check(k, p[k], rule(lambda xs: all(positive.ok(v) for v in xs), "a list of numbers > 0"))
    check("max_dict_frac", p["max_dict_frac"], optional(real(gt=0, le=1)))
    return p


def method_runs(p: dict, env: str, method: str) -> int:
    """Runs of ``method`` on ``env``: ``n_runs``, or ``heavy_runs[method]`` (at most ``n_runs``) on
    the environments with fresh contexts (:data:`HEAVY_ENVS`)."""
    if env in HEAVY_ENVS and method in p.get("heavy_runs", {}):
        return min(int(p["n_runs"]), int(p["heavy_runs"][method]))
    return int(p["n_runs"])


def runs_text(n: int, m: int = PAPER_RUNS) -> str:
    """``"3 of the paper's 10 runs"``; beyond the paper's count (a sequential step's added runs)
    ``"20 runs (the paper: 10)"``."""
    return f"{n} of the paper's {m} runs" if n <= m else f"{n} runs (the paper: {m})"


def reduced_runs(p: dict, env: str) -> dict:
    """``{method: runs}`` for the methods of ``env`` that run fewer than the paper's runs."""
    return {m: method_runs(p, env, m) for m in p["methods"] if method_runs(p, env, m) < PAPER_RUNS}


def env_spec(env: str, p: dict) -> dict:
    if env in ("f1", "f2"):
        return {"name": env, "kind": "contextual", "K": p["K"], "noise_std": p["noise_std"], "schedule": "uniform"}
    if env in ("magic", "mushroom"):
        return {"name": env, "schedule": "uniform"}
    return {"name": env, "schedule": "uniform", "K": p["K"]}


def method_config(method: str, p: dict, gamma: float, alpha: float, env: str, T: int):
    kernel = {"name": "rbf", "gamma": float(gamma)}
    lam = p["lam"]
    if method == "Async-KernelUCB":
        return "AsyncKernelUCB", {"kernel": kernel, "lam": lam, "alpha": alpha, "D": p["D"], "q": p["q"]}
    if method == "Approx-DisKernelUCB" and p.get("approx_trigger", "var_sum") == "var_sum":
        return "ApproxDisKernelUCB", {"kernel": kernel, "lam": lam, "beta": alpha, "D": p["D"], "qbar": p["q"],
                                      "trigger": "var_sum"}
    if method == "Approx-DisKernelUCB":
        d = ENV_DIM[env]
        D = p["approx_c"] * T / (p["N"] * d * math.log(T))
        return "ApproxDisKernelUCB", {"kernel": kernel, "lam": lam, "beta": alpha, "D": D, "qbar": p["q"],
                                      "trigger": "dislinucb_logdet"}
    if method == "OneKernelUCB":
        return "OneKernelUCB", {"kernel": kernel, "lam": lam, "beta": alpha, "variance_scale": "ridge",
                                "device": p["device"]}
    if method == "NKernelUCB":
        return "N-KernelUCB", {"kernel": kernel, "lam": lam, "beta": alpha, "variance_scale": "ridge"}
    if method == "FedGLB-UCB":
        return "FedGLB-UCB", {"alpha": alpha}
    if method == "DisLinUCB":
        return "DisLinUCB", {"alpha": alpha}
    if method == "FedLinUCB":
        return "FedLinUCB", {"alpha": alpha}
    fail("method", method, one_of(*METHODS))


def _grid(method, p):
    gammas = p["gammas"] if method in KERNEL_METHODS else [None]
    return [(g, a) for g in gammas for a in p["alphas"]]


def fig2_tasks(p: dict, T: int, runs: range | None, selected: dict | None = None):
    """Runs of every (env, method, grid point) — or only the ``selected`` (γ, α) per (env, method).

    ``runs=None``: runs ``0 .. method_runs(p, env, method) − 1`` of each (env, method) (the first
    runs of the paper's count, so a method with fewer runs is paired with the others on those)."""
    tasks, labels = [], []
    for env in p["envs"]:
        for method in p["methods"]:
            grid = [selected[(env, method)]] if selected else _grid(method, p)
            reps = range(method_runs(p, env, method)) if runs is None else runs
            for gamma, alpha in grid:
                alg, params = method_config(method, p, gamma if gamma is not None else 1.0, alpha, env, T)
                for rep in reps:
                    cfg = {"loop": "regret", "env": env_spec(env, p), "env_seed": int(rep), "algorithm": alg,
                           "params": params, "N": p["N"], "T": int(T)}
                    tasks.append((cfg, int(rep)))
                    labels.append({"env": env, "method": method, "gamma": gamma, "alpha": alpha, "rep": int(rep),
                                   "T": int(T)})
    return tasks, labels


@dataclass
class Fig2Results:
    params: dict
    curves: object
    runs: object
    selected: object
    tuning: object
    random: object = None  # random play's expected regret: curves (env, rep, t, regret), see random_reference


def select_settings(p: dict, runs, T: int, level: float = 0.95):
    """(γ, α) per (env, method) from the tuning grid ``runs`` (the paper's grid search, §5).

    Rule, fixed before the runs:

    1. Feasibility at the full horizon (``max_dict_frac``, default 0.6, not in the paper): a
       Nyström setting (Async-KernelUCB, Approx-DisKernelUCB) whose tuning runs kept a dictionary
       of more than ``max_dict_frac`` of the ``T`` points they saw is not selectable (below).
    2. A linear method takes the α of the smallest mean final regret.
    3. A kernel method's γ is **decided** when the γ of the smallest mean regret (each γ at its
       best α) beats every other feasible γ (at its best α) by a paired comparison over the tuning
       runs (``R(γ_best) − R(γ') < 0`` by :func:`paired_t_verdict` at ``level``: the Student-t
       interval of the paired differences, what :func:`bandits.claims.compare_paired` computes with its
       default interval; written out here because a run module may not import the claims modules,
       and a test checks that the two agree; a γ alone in its feasible set is decided).
    4. If any kernel method's γ is undecided on an environment, **every kernel method there gets
       the same γ**: among the γ feasible for all of them, the one with the smallest mean over the
       kernel methods of ``min_α R(γ, α) / min_{γ, α} R`` (each method's regret relative to its own
       best; ``0/0`` read as 1 and ``x/0`` as ∞, :func:`_relative_regret`; ties: the smallest γ); each
       method then takes its best α at that γ. (If no γ is feasible for all, rule 3's
       choice stands and the table says so.)

    Why rule 1. Such a dictionary approximates nothing: the kernel matrix is near the identity
    (γ_k = 4 on the unit-ball contexts of f1 in d = 20, k(x, y) ≈ e^{−4·1.8} for two random
    contexts), so every fresh point is sampled. Measured on f1, N = 100, T = 1000 (2 tuning seeds ×
    3 α): Async keeps 92 % of the points at γ_k = 4 (41–53 % at γ_k = 1, 7 % at 0.1),
    Approx-DisKernelUCB 64 % (29–37 %, 4–8 %). At T = 10⁴ such a run is an exact GP on thousands
    of points per client: Async-KernelUCB's N = 100 clients each keep a stale m × m factor
    (N·m²·8 B ≈ 70 GB at m = 9000, against 4.7 GB at t = 7250 with γ_k = 1, |S| = 2186).
    The excluded settings' tuning results stay in the tuning table; ``best_gamma``/``best_alpha``
    give the unrestricted choice and ``excluded`` the reason.

    Returns:
        ``(sel, table)``: ``{(env, method): (γ or None, α)}`` and a DataFrame (one row per
        (env, method): gamma, alpha, mean R_T and dictionary fraction of the choice, the
        unrestricted best, the exclusion note, ``gamma_rule``: how γ was chosen).
    """
    import pandas as pd

    r = runs.assign(dict_frac=runs["dict_size"] / runs["T"])
    g = r.groupby(["env", "method", "gamma", "alpha"], dropna=False)[["R_T", "dict_frac"]].mean().reset_index()
    frac = p.get("max_dict_frac")
    sel, rows, feas, info = {}, {}, {}, {}
    for (env, method), grp in g.groupby(["env", "method"], sort=False):
        best = grp.loc[grp["R_T"].idxmin()]
        ok, note = grp, ""
        if frac is not None and method in NYSTROM_METHODS:
            ok = grp[~(grp["dict_frac"] > frac)]
            bad = grp[grp["dict_frac"] > frac]
            if len(bad):
                what = ", ".join(f"γ={b.gamma:g}, α={b.alpha:g}: {b.dict_frac:.0%}" for b in bad.itertuples())
                note = (f"not selectable at T={p['T']}: dictionary > {frac:.0%} of the {T} tuning points "
                        f"({what})")
            if not len(ok):  # every setting infeasible: the smallest dictionary, said so
                ok = grp.loc[[grp["dict_frac"].idxmin()]]
                note += "; every setting exceeds the limit, the smallest dictionary is kept"
        ch = ok.loc[ok["R_T"].idxmin()]
        rule = ""
        if method in KERNEL_METHODS:
            feas[(env, method)] = ok
            per_g = ok.loc[ok.groupby("gamma")["R_T"].idxmin()]  # each feasible γ at its best α
            others = per_g[~np.isclose(per_g.gamma, ch.gamma)]

            def vals(gm, al):
                x = r[(r.env == env) & (r.method == method) & np.isclose(r.gamma.astype(float), gm)
                      & np.isclose(r.alpha.astype(float), al)]
                x = x.sort_values("rep")
                return x["R_T"].to_numpy(float), x["rep"].to_numpy()

            verdicts = []
            for o in others.itertuples():
                (va, ra), (vb, rb) = vals(ch.gamma, ch.alpha), vals(o.gamma, o.alpha)
                verdicts.append(paired_t_verdict(va, vb, ra, rb, level))
            decided = all(v == "PASS" for v in verdicts)
            info[(env, method)] = decided
            rule = ("decided: the only feasible γ" if not len(others) else
                    "decided: beats every other γ (paired, tuning runs)" if decided else
                    "undecided: " + ", ".join(f"γ={o.gamma:g} {v}" for o, v in zip(others.itertuples(), verdicts)))
        sel[(env, method)] = (ch.gamma if method in KERNEL_METHODS else None, ch.alpha)
        rows[(env, method)] = {"env": env, "method": method, "gamma": ch.gamma if method in KERNEL_METHODS else None,
                               "alpha": ch.alpha, "tune_R_T": ch.R_T, "tune_dict_frac": ch.dict_frac,
                               "best_gamma": best.gamma if method in KERNEL_METHODS else None,
                               "best_alpha": best.alpha, "excluded": note, "gamma_rule": rule}
    # rule 4: one γ for every kernel method of an environment where any is undecided
    for env in dict.fromkeys(e for e, _ in feas):
        kms = [m for (e, m) in feas if e == env]
        if all(info[(env, m)] for m in kms) or len(kms) < 2:
            continue
        common = set.intersection(*(set(np.round(feas[(env, m)].gamma.astype(float), 12)) for m in kms))
        if not common:
            for m in kms:
                rows[(env, m)]["gamma_rule"] += "; no γ feasible for every kernel method: own choice kept"
            continue
        score = {}
        for gm in sorted(common):
            score[gm] = np.mean([_relative_regret(feas[(env, m)][np.isclose(feas[(env, m)].gamma, gm)].R_T.min(),
                                                  feas[(env, m)].R_T.min()) for m in kms])
        gc = min(score, key=score.get)
        for m in kms:
            f = feas[(env, m)]
            c = f[np.isclose(f.gamma, gc)]
            c = c.loc[c["R_T"].idxmin()]
            sel[(env, m)] = (c.gamma, c.alpha)
            rows[(env, m)].update(gamma=c.gamma, alpha=c.alpha, tune_R_T=c.R_T, tune_dict_frac=c.dict_frac)
            rows[(env, m)]["gamma_rule"] += (f"; common γ = {gc:g} for every kernel method (smallest mean "
                                             f"regret relative to each method's best: {score[gc]:.3g})")
    return sel, pd.DataFrame(list(rows.values()))


def _relative_regret(at: float, best: float) -> float:
    """Rule 4's score of one method at one γ: ``min_α R(γ, α) / min_{γ,α} R``, with ``0/0`` read as 1 (the
    method reaches its best, zero regret, at this γ too) and ``x/0`` (x > 0) as ∞. The plain
    quotient gives NaN when a method's best tuning regret is 0 (OneKernelUCB on Mushroom): every γ's mean
    score is then NaN, and the grid's first γ would be taken without a comparison."""
    if best > 0:
        return float(at) / float(best)
    return 1.0 if at <= 0 else float("inf")


def paired_t_verdict(a, b, reps_a, reps_b, level: float = 0.95) -> str:
    """Verdict of ``mean(a − b) < 0`` on the runs both samples have (paired by run index): PASS
    when the upper end of the Student-t ``level`` interval of the differences is below 0, FAIL when
    its lower end is at least 0, INCONCLUSIVE otherwise and below 3 pairs (all differences equal:
    the interval is that value). The tuning rule's comparison (:func:`select_settings`); the same
    verdict as :func:`bandits.claims.compare_paired` with ``side="<"``, threshold 0 and its default
    (Student t) interval: both compute it by :mod:`bandits.stats` (``tests/test_async_experiments.py``)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ia = {int(r): i for i, r in enumerate(np.asarray(reps_a).tolist())}
    ib = {int(r): i for i, r in enumerate(np.asarray(reps_b).tolist())}
    common = sorted(set(ia) & set(ib))
    d = np.array([a[ia[r]] - b[ib[r]] for r in common], dtype=float)
    if not np.all(np.isfinite(d)):
        raise ValueError("paired_t_verdict: non-finite run values")
    _, lo, hi = paired_t_interval(d, level)
    return verdict_below(lo, hi, 0.0)


def _collect(tasks, labels, seed, n_jobs, backend, cache_dir, progress, desc, every):
    import pandas as pd

    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                       desc=desc)
    curves, runs = [], []
    for lab, res in zip(labels, results):
        a, meta = res["arrays"], res["meta"]
        R = np.cumsum(a["regret"])
        C = np.cumsum(a["comm_up"] + a["comm_down"])
        idx = np.unique(np.r_[np.arange(every - 1, len(R), every), len(R) - 1])
        curves.append(pd.DataFrame({**lab, "t": idx + 1, "regret": R[idx], "comm": C[idx]}))
        info = meta["info"]
        prior = info.get("prior_steps")  # Async-KernelUCB: pulls made on the prior (warm-up)
        runs.append({**lab, "R_T": float(R[-1]), "C_T": float(C[-1]), "comm_rounds": meta["comm_rounds"],
                     "wall_time": meta["wall_time"], "cpu_time": meta.get("cpu_time"),
                     "dict_size": info.get("dict_size", (info.get("dict_sizes") or [np.nan])[-1]),
                     "prior_pulls": len(prior) if prior is not None else np.nan,
                     "R_prior": float(np.sum(a["regret"][np.asarray(prior, dtype=int)])) if prior is not None
                     else np.nan})
    return pd.concat(curves, ignore_index=True), pd.DataFrame(runs)


def run_fig2(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None,
             progress: bool = True) -> Fig2Results:
    """Tune, then run the selected (γ, α) of every (env, method).

    Tuning (full mode): the whole grid on ``tune_runs`` short runs of length ``tune_T`` (seeds
    100+, apart from the reported runs), selection by :func:`select_settings`. With
    ``tune_runs = 0`` and a grid, the grid is run at full length on the reported runs themselves
    (all results kept). The reported runs: ``method_runs(p, env, method)`` per (env, method)."""
    import pandas as pd

    tuning = None
    multi = [m for m in p["methods"] if len(_grid(m, p)) > 1]  # only these are tuned
    fixed = {(e, m): _grid(m, p)[0] for e in p["envs"] for m in p["methods"] if m not in multi}
    if not multi:
        sel = fixed
        selected = pd.DataFrame([{"env": e, "method": m, "gamma": g, "alpha": a} for (e, m), (g, a) in sel.items()])
    else:
        if p["tune_runs"]:
            tT, reps, desc = min(p["tune_T"], p["T"]), range(100, 100 + p["tune_runs"]), "Async tuning"
        else:
            tT, reps, desc = p["T"], range(p["n_runs"]), "Async Fig. 2 grid"
        _, tuning = _collect(*fig2_tasks(dict(p, methods=multi), tT, reps), seed, n_jobs, backend, cache_dir,
                             progress, desc, max(1, tT // 100))
        sel, selected = select_settings(p, tuning, tT)
        sel.update(fixed)
        if fixed:
            selected = pd.concat([selected, pd.DataFrame(
                [{"env": e, "method": m, "gamma": g, "alpha": a, "gamma_rule": "single grid point"}
                 for (e, m), (g, a) in fixed.items()])], ignore_index=True)
        order = {(e, m): i for i, (e, m) in enumerate((e, m) for e in p["envs"] for m in p["methods"])}
        selected = selected.iloc[sorted(range(len(selected)),
                                        key=lambda i: order[(selected.env.iloc[i], selected.method.iloc[i])])]
        selected = selected.reset_index(drop=True)
    curves, runs = _collect(*fig2_tasks(p, p["T"], None, selected=sel), seed, n_jobs, backend,
                            cache_dir, progress, "Async Fig. 2", max(1, p["T"] // 100))
    selected["runs"] = [method_runs(p, e, m) for e, m in zip(selected.env, selected.method)]
    selected["paper_runs"] = PAPER_RUNS
    rand = pd.concat([random_reference(p, env, range(int(p["n_runs"])), p["T"], seed, max(1, p["T"] // 100))
                      for env in p["envs"]], ignore_index=True)
    return Fig2Results(p, curves, runs, selected, tuning, rand)


def random_reference(p: dict, env: str, reps, T: int, seed: int = 0, every: int = 1):
    """Random play's **expected** cumulative regret on the runs ``reps`` of ``env``: the same
    environment draws as every method's run r (:func:`bandits.runner.run_seeds`: the environment
    stream alone decides the arm sets and the schedule), each step's regret the best mean minus
    the mean over the arms (uniform choice, no reward drawn). A reference line, not a method: it
    is in no claim. Returns a DataFrame (env, method, rep, t, regret) at every ``every``-th step."""
    import pandas as pd

    from ..envs import make_env
    from ..runner import run_seeds

    out = []
    for rep in reps:
        e = make_env(env_spec(env, p), int(rep))
        env_ss, _ = run_seeds(seed, int(rep))
        rng_env = np.random.default_rng(env_ss.spawn(2)[0])
        reg = np.zeros(T)
        for t in range(T):
            agents, arms, means = e.round(t, p["N"], rng_env)
            means = np.asarray(means, dtype=float)
            avg = np.broadcast_to(means.mean(axis=-1), (len(agents),)) if arms.shared else means.mean(axis=1)
            reg[t] = float(np.sum(e.best_means(means, len(agents)) - avg))
        R = np.cumsum(reg)
        idx = np.unique(np.r_[np.arange(every - 1, T, every), T - 1])
        out.append(pd.DataFrame({"env": env, "method": RANDOM, "rep": int(rep), "t": idx + 1, "regret": R[idx]}))
    return pd.concat(out, ignore_index=True)


def run_D_sensitivity(res: Fig2Results, Ds=(0.1, "1/N^2"), seed: int = 0, n_jobs: int = 1, backend: str = "loky",
                      cache_dir=None, progress: bool = True, with_runs: bool = False):
    """Async-KernelUCB at its selected (γ_k, α) on the same runs, with other thresholds D
    (``"1/N^2"``: the theory's choice). The paper does not state the D of its experiments; this
    shows what it does to the regret–communication comparison with Approx-DisKernelUCB. Not part
    of the paper's figure or of the claims: it uses the first ``sens_runs`` runs (``None``: all),
    and the table's means are over each row's own runs (column ``runs``). ``with_runs``: also the
    table's own runs, one row each with its recorded times (``(table, runs)``; the notebook writes them
    to ``D_sensitivity_runs.csv``, which ``figures/TIMES.md`` counts)."""
    import pandas as pd

    p = res.params
    n_sens = p["n_runs"] if p.get("sens_runs") is None else min(p["n_runs"], p["sens_runs"])
    envs = [e for e in p["envs"] if p.get("sens_envs") is None or e in p["sens_envs"]]
    sel = res.selected.set_index(["env", "method"])
    tasks, labels = [], []
    for env in envs:
        gamma, alpha = sel.loc[(env, "Async-KernelUCB"), ["gamma", "alpha"]]
        for D in Ds:
            Dv = 1.0 / p["N"] ** 2 if D == "1/N^2" else float(D)
            alg, params = method_config("Async-KernelUCB", dict(p, D=Dv), gamma, alpha, env, p["T"])
            for rep in range(n_sens):
                cfg = {"loop": "regret", "env": env_spec(env, p), "env_seed": rep, "algorithm": alg,
                       "params": params, "N": p["N"], "T": p["T"]}
                tasks.append((cfg, rep))
                labels.append({"env": env, "method": f"Async-KernelUCB (D={D})", "gamma": gamma, "alpha": alpha,
                               "rep": rep, "T": p["T"]})
    _, runs = _collect(tasks, labels, seed, n_jobs, backend, cache_dir, progress, "Async D sensitivity",
                       max(1, p["T"] // 10))
    base = res.runs[res.runs.method.isin(["Async-KernelUCB", "Approx-DisKernelUCB"]) & res.runs.env.isin(envs)]
    base = base.assign(method=base.method.where(base.method != "Async-KernelUCB", f"Async-KernelUCB (D={p['D']:g})"))
    out = pd.concat([base, runs], ignore_index=True).groupby(["env", "method"])
    table = out[["R_T", "C_T"]].mean().assign(runs=out.size())
    return (table, runs) if with_runs else table


def comm_table(res: Fig2Results):
    """Communication in the open, per (env, method): runs, (γ, α), mean R(T) and C(T), C(T) over
    OneKernelUCB's (its raw-point broadcast: (d+1)·N scalars a step), the mean dictionary size
    (Nyström methods), exchanges/syncs, and for Async-KernelUCB the pulls made on the prior before a
    client's first exchange and their regret (D's warm-up, ``prior_pulls``, ``R_prior``); random
    play's expected R(T) as its own row."""
    import pandas as pd

    r = res.runs
    g = r.groupby(["env", "method"], sort=False)
    t = g.agg(runs=("rep", "size"), gamma=("gamma", "first"), alpha=("alpha", "first"), R_T=("R_T", "mean"),
              C_T=("C_T", "mean"), dict_size=("dict_size", "mean"), comm_rounds=("comm_rounds", "mean"),
              prior_pulls=("prior_pulls", "mean"), R_prior=("R_prior", "mean")).reset_index()
    one = t[t.method == "OneKernelUCB"].set_index("env").C_T
    t["C_over_One"] = [c / one.get(e, np.nan) if e in one.index else np.nan for e, c in zip(t.env, t.C_T)]
    if res.random is not None and len(res.random):
        last = res.random.groupby(["env", "rep"]).regret.last().groupby("env").agg(["mean", "size"])
        t = pd.concat([t, pd.DataFrame({"env": last.index, "method": RANDOM, "runs": last["size"].values,
                                        "R_T": last["mean"].values, "C_T": 0.0})], ignore_index=True)
    order = {e: i for i, e in enumerate(res.params["envs"])}
    t = t.sort_values("env", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
    return t[["env", "method", "runs", "gamma", "alpha", "R_T", "C_T", "C_over_One", "dict_size", "comm_rounds",
              "prior_pulls", "R_prior"]]


def run_gamma_sensitivity(res: Fig2Results, seed: int = 0, n_jobs: int = 1, backend: str = "loky",
                          cache_dir=None, progress: bool = True, with_runs: bool = False):
    """Regret against communication for the two Nyström methods on ``gsens_envs`` (f1 and
    MagicTelescope by default) over the kernel width γ ∈ ``gsens_gammas`` (each method at its
    selected α) and the oversampling q ∈ ``gsens_q`` (at its selected γ; Approx-DisKernelUCB's q̄),
    the first ``gsens_runs`` runs at Figure 2's T and N. Full mode takes q ∈ {0.25, 0.5} (below the
    figure's q = 1: a larger q at γ = 1 on f1 grows the dictionary towards half of the 10⁴ points,
    ≈ 20–30 GB for Async-KernelUCB's 100 stale factors; quick mode shows q = 2 at T = 1000: 79 % of
    the points on f1). A setting whose tuning dictionary exceeded
    ``max_dict_frac`` (e.g. γ = 4 on f1: 90 % of the points, tens of GB at T = 10⁴) is not run at
    full length: its row says so and the tuning runs' point (T = ``tune_T``) stands for it.
    Not part of the claims: it shows where the paper's communication story holds.

    Returns a DataFrame, one row per (env, method, γ, q) with runs, mean R_T, C_T, dict_size, and
    ``T`` (Figure 2's, or the tuning length for the stand-ins; ``note`` says which); with ``with_runs``,
    ``(table, runs)``: also the runs made at Figure 2's T, one row each with its recorded times (the
    notebook writes them to ``gamma_sensitivity_runs.csv``, which ``figures/TIMES.md`` counts; a run at
    Figure 2's own setting is its run, found in the run cache, and counted once)."""
    import pandas as pd

    p = res.params
    sel = res.selected.set_index(["env", "method"])
    tun = res.tuning
    frac = p.get("max_dict_frac")
    tasks, labels, rows = [], [], []
    n = min(int(p["gsens_runs"]), int(p["n_runs"]))
    for env in [e for e in p["gsens_envs"] if e in p["envs"]]:
        for m in [m for m in NYSTROM_METHODS if m in p["methods"]]:
            g0, a0 = sel.loc[(env, m), ["gamma", "alpha"]]
            points = [(g, p["q"]) for g in p["gsens_gammas"]] + [(g0, q) for q in p["gsens_q"] if q != p["q"]]
            for g, q in dict.fromkeys((float(g), float(q)) for g, q in points):
                dense = None
                if frac is not None and tun is not None and q == p["q"]:
                    t = tun[(tun.env == env) & (tun.method == m) & np.isclose(tun.gamma.astype(float), g)]
                    if len(t) and float((t.dict_size / t["T"]).max()) > frac:
                        dense = t[np.isclose(t.alpha.astype(float), a0)] if len(t[np.isclose(t.alpha.astype(float), a0)]) else t
                if dense is not None:
                    rows.append({"env": env, "method": m, "gamma": g, "q": q, "alpha": a0, "runs": len(dense),
                                 "R_T": dense.R_T.mean(), "C_T": dense.C_T.mean(),
                                 "dict_size": dense.dict_size.mean(), "T": int(dense["T"].iloc[0]),
                                 "note": f"tuning runs (T={int(dense['T'].iloc[0])}): dictionary > {frac:.0%}, "
                                         f"not run at T={p['T']}"})
                    continue
                alg, params = method_config(m, dict(p, q=q), g, a0, env, p["T"])
                for rep in range(n):
                    cfg = {"loop": "regret", "env": env_spec(env, p), "env_seed": rep, "algorithm": alg,
                           "params": params, "N": p["N"], "T": p["T"]}
                    tasks.append((cfg, rep))
                    labels.append({"env": env, "method": m, "gamma": g, "alpha": a0, "q": q, "rep": rep,
                                   "T": p["T"]})
    out, runs = pd.DataFrame(rows), pd.DataFrame()
    if tasks:
        _, runs = _collect(tasks, labels, seed, n_jobs, backend, cache_dir, progress, "Async γ/q sensitivity",
                           max(1, p["T"] // 10))
        g = runs.groupby(["env", "method", "gamma", "q", "alpha"], sort=False)
        full = g.agg(runs=("rep", "size"), R_T=("R_T", "mean"), C_T=("C_T", "mean"),
                     dict_size=("dict_size", "mean")).reset_index().assign(T=p["T"], note="")
        out = pd.concat([full, out], ignore_index=True)
    return (out, runs) if with_runs else out
