"""DUETS (Pavlovic, Salgia & Zhao, 2024): Figure 1's parameters and runs (its claims:
:mod:`bandits.experiments.duets_claims`; its figures: :mod:`bandits.experiments.duets_plots`).

Figure 1: cumulative regret (a–d) and communication (e–h) vs time on h1, h2, Branin and
Hartmann-4, N = 10 agents, T = 50, SE kernel (ℓ = 0.2 Branin, 1 otherwise), noise s.d. 0.2,
D = 10 (DisKernelUCB) and 20 (ApproxDisKernelUCB), T_1 = 2 and p_0 = 10 (DUETS), β from the
grid {0.2, 0.5, 1, 2, 5} for every algorithm, 5 Monte Carlo runs (paper §5).

Choices where the paper (§5) is silent, made by this package (λ = 0.2 and the 2000 random candidates
follow the authors' code, sudeepsalgia/distributed_kernel_bandits, ``kernelbanditclass.py`` and the
run scripts): λ = 0.2; 2000 random candidates per
function (unit sphere for h1/h2, cube otherwise) drawn once from ``env_seed`` with θ*; regret
against the discrete maximum; β selected per (function, algorithm) by the smallest mean R(T)
(the figure: over all runs, the paper's grid search; the claims: over the last ``tune_runs``
= 2 runs, tested on the others, :func:`split_selection`; all grid results are kept in
``results.csv``); q̄ = 4 for ApproxDisKernelUCB.

Paper vs the authors' code: DUETS uses the paper's inducing probability ``p_0 σ²_{j,max}``;
the code's ``4 log(N T_j)/(N T_j)`` runs as the variant ``DUETS [code p_j]``, and the code's
elimination rule (UCB ≥ max LCB) as ``DUETS [code trim]``. Communication is shown in the
paper's unit (per-agent uplink + downlink, Eq. 2) and in the code's (total uplink).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..comm import comm_curve
from ..envs import FUNCTIONS, make_env
from ..runner import sweep
from .common import mode_params
from ..validation import ParameterError, check, each, fail, integer, lt, number, one_of, real, subset_of

__all__ = ["FIG1_FUNCTIONS", "BASE_METHODS", "VARIANTS", "fig1_params", "validate_fig1",
           "fig1_tasks", "run_fig1", "Fig1Results", "at_selected"]

FIG1_FUNCTIONS = ("h1", "h2", "branin", "hartmann4")
BASE_METHODS = ("DUETS", "DisKernelUCB", "ApproxDisKernelUCB", "N-KernelUCB")
VARIANTS = ("DUETS [code p_j]", "DUETS [code trim]")

# full: the paper's 5 runs for the claims, plus 2 that tune β (tuning on runs apart from the tested ones, so that picking the best β does not bias the claims)
_FULL = dict(N=10, T=50, M=2000, n_runs=7, tune_runs=2, betas=[0.2, 0.5, 1.0, 2.0, 5.0],
             functions=list(FIG1_FUNCTIONS), methods=list(BASE_METHODS) + list(VARIANTS),
             noise_std=0.2, lam=0.2, env_seed=0, T1=2, p0=10.0, code_p0=4.0,
             D_dis=10.0, D_approx=20.0, qbar=4.0)
# quick: the paper's N, T and T_1; fewer candidates (a choice of this package, for speed); 5 runs as in full mode, so that 3 remain
# for the claims once 2 have tuned β
_QUICK = dict(_FULL, M=500, n_runs=5)


def fig1_params(mode: str = "quick", **overrides) -> dict:
    """The Figure-1 parameters of ``mode`` ("quick" or "full"), with overrides applied."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "Figure-1")
    validate_fig1(p)
    return p


def validate_fig1(p: dict) -> None:
    for k in ("N", "T", "M", "n_runs", "T1"):
        check(k, p[k], integer(ge=1))
    check("tune_runs", p["tune_runs"], integer(ge=0))
    check("tune_runs", p["tune_runs"], lt(p["n_runs"]), note="the claims need runs that did not tune β")
    check("env_seed", p["env_seed"], integer(ge=0))
    check("noise_std", p["noise_std"], number(ge=0))
    for k in ("lam", "p0", "code_p0", "D_dis", "D_approx", "qbar"):
        check(k, p[k], number(gt=0))
    check("functions", p["functions"], subset_of(*FIG1_FUNCTIONS))
    check("methods", p["methods"], subset_of(*BASE_METHODS + VARIANTS))
    check("betas", p["betas"], each(real(gt=0)))


def method_config(method: str, p: dict) -> tuple[str, dict]:
    """Algorithm name and parameters (without kernel and β) of a Figure-1 method label."""
    common = {"lam": p["lam"]}
    if method == "DUETS":
        return "DUETS", dict(common, T1=p["T1"], p0=p["p0"], inducing_rule="variance")
    if method == "DUETS [code p_j]":
        return "DUETS", dict(common, T1=p["T1"], p0=p["code_p0"], inducing_rule="log_proxy")
    if method == "DUETS [code trim]":
        return "DUETS", dict(common, T1=p["T1"], p0=p["p0"], inducing_rule="variance", elim_rule="ucb_lcb")
    if method == "DisKernelUCB":
        return "DisKernelUCB", dict(common, D=p["D_dis"])
    if method == "ApproxDisKernelUCB":
        return "ApproxDisKernelUCB", dict(common, D=p["D_approx"], qbar=p["qbar"])
    if method == "N-KernelUCB":
        return "N-KernelUCB", common
    fail("method", method, one_of(*BASE_METHODS + VARIANTS))


def fig1_tasks(p: dict) -> tuple[list[tuple[dict, int]], list[dict]]:
    """All runs of the β grid: ``(config, rep)`` pairs and a label dict for each."""
    tasks, labels = [], []
    for fn in p["functions"]:
        ell = FUNCTIONS[fn].lengthscale
        env = {"name": fn, "M": p["M"], "noise_std": p["noise_std"]}
        for method in p["methods"]:
            alg, params = method_config(method, p)
            for beta in p["betas"]:
                cfg = {"loop": "regret", "env": env, "env_seed": p["env_seed"], "algorithm": alg,
                       "params": dict(params, kernel={"name": "rbf", "lengthscale": ell}, beta=float(beta)),
                       "N": p["N"], "T": p["T"]}
                for rep in range(p["n_runs"]):
                    tasks.append((cfg, rep))
                    labels.append({"function": fn, "method": method, "beta": float(beta), "rep": rep})
    return tasks, labels


@dataclass
class Fig1Results:
    params: dict
    curves: "object"  # pandas DataFrame, one row per (run, t)
    runs: "object"  # one row per run
    epochs: "object"  # DUETS epoch logs
    selected: "object"  # best β per (function, method)
    n_cached: int = 0
    n_computed: int = 0


def run_fig1(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky",
             cache_dir: str | None = None, progress: bool = True) -> Fig1Results:
    import pandas as pd

    tasks, labels = fig1_tasks(p)
    results, stats = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir,
                           progress=progress, desc="DUETS Fig. 1")
    envs = {fn: make_env({"name": fn, "M": p["M"], "noise_std": p["noise_std"]}, p["env_seed"])
            for fn in p["functions"]}
    T, N = p["T"], p["N"]
    t = np.arange(1, T + 1)
    curve_rows, run_rows, epoch_rows = [], [], []
    for lab, res in zip(labels, results):
        a, meta = res["arrays"], res["meta"]
        R = np.cumsum(a["regret"])
        c_paper = comm_curve(a["comm_up"], a["comm_down"], N, "paper")
        c_code = comm_curve(a["comm_up"], a["comm_down"], N, "code_uplink")
        curve_rows.append(pd.DataFrame({**lab, "t": t, "regret": R, "comm_paper": c_paper,
                                        "comm_code": c_code}))
        info = meta["info"]
        run_rows.append({**lab, "R_T": R[-1], "C_paper": c_paper[-1], "C_code": c_code[-1],
                         "comm_rounds": meta["comm_rounds"], "wall_time": meta["wall_time"],
                         "cpu_time": meta.get("cpu_time"),
                         "n_syncs": info.get("n_syncs", np.nan)})
        if "epochs" in info:
            env = envs[lab["function"]]
            xstar = env.argmax
            sets = info["active_sets"]
            for k, ep in enumerate(info["epochs"]):
                A = np.asarray(sets[k])
                row = {**lab, **ep, "delta_j": float(env.fstar - env.f[A].min()),
                       "xstar_active": bool(xstar in set(A.tolist()))}
                if k + 1 < len(sets):
                    row["xstar_survives"] = bool(xstar in set(sets[k + 1]))
                epoch_rows.append(row)
    curves = pd.concat(curve_rows, ignore_index=True)
    runs = pd.DataFrame(run_rows)
    epochs = pd.DataFrame(epoch_rows)
    g = runs.groupby(["function", "method", "beta"], as_index=False)["R_T"].mean()
    selected = g.loc[g.groupby(["function", "method"])["R_T"].idxmin()].reset_index(drop=True)
    selected = selected.rename(columns={"R_T": "R_T_mean"})
    return Fig1Results(p, curves, runs, epochs, selected, stats.cached, stats.computed)


def at_selected(res: Fig1Results):
    """The runs of each (function, method) at its selected β."""
    sel = res.selected[["function", "method", "beta"]]
    return res.runs.merge(sel, on=["function", "method", "beta"])
