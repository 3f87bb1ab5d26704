"""CoPE-KB (collaborative pure exploration in kernel bandits): Figures 2 and 3, theorem checks: the parameters
and runs (the claims: :mod:`bandits.experiments.cope_kb_claims`; the figures: :mod:`bandits.experiments.cope_kb_plots`).

Figure 2 (fixed confidence): per-agent sample complexity vs Δ_min ∈ [0.1, 0.8] for three
task-similarity cases (rank(K_Z) = 1, 2, V; V = 5 agents, n = 6 two-hot arms), δ = 0.005, 50 runs,
95 % intervals; CoKernelFC, CoKernel-IndAlloc (readings A and B), IndRAGE, IndRAGE/V, IndALBA,
IndPolyALBA (a reconstruction).
Figure 3 (fixed budget): error probability vs per-agent budget T ∈ [3000, 500000], 100 runs, and
the share of the budget each method spends; CoKernelFB, CoKernelFB-IndAlloc (readings A and B),
IndPeaceFB (per-round data as Algorithm 2, and pooled over rounds as Peace's code), IndUniformFB.

The paper names each ablation in one sentence ("agents use locally optimal sample allocations"):
reading A (this package's default) executes the average of the agents' local designs with CoKernelFC's
batch size, so at rank(K_Z) = 1 it *is* CoKernelFC (identical in every run; an implementation
check, never evidence); reading B lets every agent size its own batch (FC) or run its own Peace
schedule (FB) as if alone, sharing the data (:class:`~bandits.algorithms.cope_kb.CoKernelIndAlloc`,
:class:`~bandits.algorithms.cope_kb.CoKernelFBIndAlloc`).

Claims: ``kind="paper"`` for statements of the paper that the runs can contradict
(Figure 2 "best", IndRAGE the best single-agent adaption, Figure 3 "lower error" and "closer and
closer" to IndPeaceFB with the rank-V level tested, Theorem 1's δ, Theorem 2's V-fold exponent);
``kind="implementation"`` for what holds by construction here (Figure 2(a)–(c) and the speedup
ordering: the ratio is g/V because ρ* scales with rank(K_Z) under one sample-size formula; C1,
C2, C3, C4, C6). Thresholds are written in each check and were fixed before the full-mode run.

Choices where the paper (§6, App. A) is silent, made by this package: the Δ grid {0.1, …, 0.8}; the T grid
{3k, 5k, 7k, 10k, 15k, 20k, 30k, 45k, 60k, 100k, 150k, 200k, 300k, 400k, 500k} (full mode; dense where
rank 1's error lies in (0.01, 0.6), below 60k, and where rank V's does, above 100k, so that C8's two
exponent fits have enough budgets); Δ_min = 0.02 for Figure 3; N(0, 1) noise; ξ = 1e-6;
ε = 0.1; one sample-size constant for every RAGE-family method (``constants``: "practical"
= the RAGE code's 2(1+ε), the figures' default, or "theory" = the paper's 32(1+ε)²); an error
in Figure 3 means *some* agent is wrong.

Figures 2 and 3 and the run-based checks (C3, C4, C5, C8) share the instances, the method tables (both
IndAlloc readings, IndPeaceFB pooled and unpooled) and the thresholds stated here; the theorem checks that
need no Figure run live in :mod:`bandits.experiments.cope_theory`.
"""
from __future__ import annotations

import numpy as np

from ..envs.cope import balanced_groups
from ..runner import sweep
from .common import mode_params
from ..validation import ParameterError, between, check, fail, integer, number, one_of, rule, subset_of

__all__ = ["FC_METHODS", "FB_METHODS", "FB_BASELINES", "cope_params", "fc_tasks", "fb_tasks", "run_fc",
           "run_fb", "fc_summary", "theory_params", "run_c1", "run_c2", "run_c6", "budget_table", "theta_norms",
           "write_results", "read_results"]

CASES = (1, 2, 5)
FC_METHODS = ("CoKernelFC", "CoKernel-IndAlloc-A", "CoKernel-IndAlloc-B", "IndRAGE", "IndALBA", "IndPolyALBA")
FB_METHODS = ("CoKernelFB", "CoKernelFB-IndAlloc-A", "CoKernelFB-IndAlloc-B", "IndPeaceFB", "IndPeaceFB-pooled",
              "IndUniformFB")
FB_VARIANTS = ("CoKernelFB [reuse rounds, R within]",)
#: The paper's baselines of Figure 3 in both our readings (IndAlloc A/B; Peace per-round/pooled).
FB_BASELINES = ("CoKernelFB-IndAlloc-A", "CoKernelFB-IndAlloc-B", "IndPeaceFB", "IndPeaceFB-pooled", "IndUniformFB")

_FULL = dict(V=5, cases=list(CASES), deltas=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], fc_runs=50,
             budgets=[3000, 5000, 7000, 10000, 15000, 20000, 30000, 45000, 60000, 100000, 150000, 200000, 300000,
                      400000, 500000], fb_runs=100, fb_delta_min=0.02,
             delta=0.005, xi=1e-6, eps=0.1, constants="practical", constants_compare=True,
             fc_methods=list(FC_METHODS), fb_methods=list(FB_METHODS) + list(FB_VARIANTS),
             alba_runs=None)
_QUICK = dict(_FULL, deltas=[0.1, 0.2, 0.4, 0.8], fc_runs=10, alba_runs=3,
              budgets=[7000, 30000, 100000, 300000], fb_runs=40)


def cope_params(mode: str = "quick", **overrides) -> dict:
    p = mode_params(mode, _FULL, _QUICK, overrides, "CoPE-KB")
    check("V", p["V"], integer(ge=2))
    check("fc_runs", p["fc_runs"], integer(ge=1))
    check("fb_runs", p["fb_runs"], integer(ge=1))
    if p["alba_runs"] is not None:
        check("alba_runs", p["alba_runs"], integer(ge=1))
    for k in ("delta", "xi", "eps", "fb_delta_min"):
        check(k, p[k], number(gt=0))
    check("delta", p["delta"], between(0, 1))
    check("constants", p["constants"], one_of("practical", "theory"))
    ranks = range(1, p["V"] + 1)
    check("cases", p["cases"], rule(lambda cs: bool(cs) and all(c in ranks for c in cs), f"ranks in 1..V={p['V']}"))
    check("deltas", p["deltas"], rule(lambda ds: bool(ds) and all(isinstance(d, (int, float)) and 0 < d < 1 for d in ds),
                                      "gaps in (0, 1)"))
    check("budgets", p["budgets"], rule(lambda bs: bool(bs) and all(not isinstance(b, bool) and isinstance(b, int)
                                                                    and b >= 1 for b in bs), "positive integers"))
    check("fc_methods", p["fc_methods"], subset_of(*FC_METHODS))
    check("fb_methods", p["fb_methods"], subset_of(*FB_METHODS + FB_VARIANTS))
    return p


def theta_norms(rank: int, delta_min: float, V: int) -> list[float]:
    """‖θ*_v‖ of each agent's block (ALBA's known norm bound L)."""
    groups = balanced_groups(rank, V)
    return [float(np.linalg.norm(0.1 + delta_min * (4 * g + np.arange(4)))) for g in groups]


def _fc_method(method: str, p: dict, rank: int, dm: float, constants: str):
    common = {"delta": p["delta"], "xi": p["xi"], "eps": p["eps"]}
    if method == "CoKernelFC":
        return "CoKernelFC", dict(common, constants=constants)
    if method in ("CoKernel-IndAlloc-A", "CoKernel-IndAlloc-B"):
        return "CoKernelIndAlloc", dict(common, constants=constants, reading=method[-1])
    if method == "IndRAGE":
        return "IndRAGE", dict(common, constants=constants)
    if method in ("IndALBA", "IndPolyALBA"):
        return method, {"delta": p["delta"], "theta_norms": theta_norms(rank, dm, p["V"])}
    fail("method", method, one_of(*FC_METHODS))


def _fb_method(method: str, p: dict, T: int):
    common = {"xi": p["xi"], "eps": p["eps"], "T": int(T)}
    if method == "CoKernelFB":
        return "CoKernelFB", common
    if method in ("CoKernelFB-IndAlloc-A", "CoKernelFB-IndAlloc-B"):
        return "CoKernelFBIndAlloc", dict(common, reading=method[-1])
    if method == "CoKernelFB [reuse rounds, R within]":
        return "CoKernelFB", dict(common, reuse_past_rounds=True, R_mode="within")
    if method == "IndPeaceFB":
        return "IndPeaceFB", common
    if method == "IndPeaceFB-pooled":
        return "IndPeaceFB", dict(common, reuse_past_rounds=True)
    if method == "IndUniformFB":
        return "IndUniformFB", {"xi": p["xi"], "T": int(T)}
    fail("method", method, one_of(*FB_METHODS + FB_VARIANTS))


def fc_tasks(p: dict, constants: str | None = None, methods=None, deltas=None, cases=None, runs=None):
    constants = constants or p["constants"]
    tasks, labels = [], []
    for rank in cases or p["cases"]:
        for dm in deltas or p["deltas"]:
            for m in methods or p["fc_methods"]:
                alg, params = _fc_method(m, p, rank, dm, constants)
                n = runs or (p["alba_runs"] if (m in ("IndALBA", "IndPolyALBA") and p["alba_runs"]) else p["fc_runs"])
                cfg = {"loop": "pure_exploration", "instance": {"rank": rank, "delta_min": dm, "V": p["V"]},
                       "algorithm": alg, "params": params,
                       "max_rounds": 256 if m in ("IndALBA", "IndPolyALBA") else 64}
                for rep in range(n):
                    tasks.append((cfg, rep))
                    labels.append({"rank": rank, "delta_min": dm, "method": m, "constants": constants,
                                   "rep": rep})
    return tasks, labels


def fb_tasks(p: dict):
    tasks, labels = [], []
    for rank in p["cases"]:
        for T in p["budgets"]:
            for m in p["fb_methods"]:
                alg, params = _fb_method(m, p, T)
                cfg = {"loop": "pure_exploration",
                       "instance": {"rank": rank, "delta_min": p["fb_delta_min"], "V": p["V"]},
                       "algorithm": alg, "params": params, "max_rounds": 64}
                for rep in range(p["fb_runs"]):
                    tasks.append((cfg, rep))
                    labels.append({"rank": rank, "T": T, "method": m, "rep": rep})
    return tasks, labels


def _frame(tasks, labels, seed, n_jobs, backend, cache_dir, progress, desc):
    import pandas as pd

    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir,
                       progress=progress, desc=desc)
    rows = []
    for lab, res in zip(labels, results):
        m = res["meta"]
        samples = res["arrays"]["samples"]
        per_agent_load = samples.sum(axis=0) if samples.size else np.zeros(len(res["arrays"]["correct"]))
        rows.append({**lab, "S": m["samples_per_agent"], "rounds": m["rounds"], "comm_scalars": m["comm_scalars"],
                     "all_correct": m["all_correct"], "n_wrong": int((~res["arrays"]["correct"].astype(bool)).sum()),
                     "max_agent_load": float(per_agent_load.max()) if per_agent_load.size else 0.0,
                     "wall_time": m["wall_time"], "cpu_time": m.get("cpu_time")})
    return pd.DataFrame(rows)


def run_fc(p, seed=0, n_jobs=1, backend="loky", cache_dir=None, progress=True, **kw):
    tasks, labels = fc_tasks(p, **kw)
    return _frame(tasks, labels, seed, n_jobs, backend, cache_dir, progress, "CoPE-KB FC")


def run_fb(p, seed=0, n_jobs=1, backend="loky", cache_dir=None, progress=True):
    tasks, labels = fb_tasks(p)
    return _frame(tasks, labels, seed, n_jobs, backend, cache_dir, progress, "CoPE-KB FB")


def fc_summary(fc, V):
    """Mean S with 95 % half-width per (rank, Δ, method), plus the derived IndRAGE/V."""
    import pandas as pd

    g = fc.groupby(["constants", "rank", "delta_min", "method"])["S"]
    s = g.agg(["mean", "std", "count"]).reset_index()
    s["ci95"] = 1.96 * s["std"].fillna(0) / np.sqrt(s["count"])
    rv = s[s.method == "IndRAGE"].copy()
    rv["method"] = "IndRAGE/V"
    rv[["mean", "std", "ci95"]] = rv[["mean", "std", "ci95"]] / V
    return pd.concat([s, rv], ignore_index=True)


def budget_table(fb):
    """Mean share of the budget TV each FB method spends, per (rank, T, method)."""
    return fb.assign(spent=fb.S / fb["T"]).groupby(["rank", "T", "method"])["spent"].mean()


# ------------------------------------------------------------------------------ the folder's run tables
def _fig3_name(rank) -> str:
    return f"fig3_rank{int(rank)}.csv"


def write_results(out_dir, results, float_format: str = "%.6g") -> list:
    """The notebook's run tables, one row per run: ``results.csv`` holds Figure 2's runs (``part`` ``fig2`` and the
    other constants' panel; no budget ``T``), ``fig3_rank<r>.csv`` Figure 3's of rank(K_Z) = r (no gap
    ``delta_min``), one file per panel (Figure 3's 31 500 full-mode runs in one file would exceed the
    repository's 2 MB per file). Returns the paths written; a
    ``fig3_rank*.csv`` of an earlier run that this one does not rewrite is removed, so that :func:`read_results`
    reads this run's rows only."""
    from pathlib import Path

    out = Path(out_dir)
    fig3 = results["part"] == "fig3"
    paths = [out / "results.csv"]
    results[~fig3].drop(columns=["T"], errors="ignore").to_csv(paths[0], index=False, float_format=float_format)
    fb = results[fig3].drop(columns=["delta_min"], errors="ignore")
    for rank, rows in fb.groupby("rank", sort=True):
        paths.append(out / _fig3_name(rank))
        rows.to_csv(paths[-1], index=False, float_format=float_format)
    for stale in set(out.glob("fig3_rank*.csv")) - set(paths):
        stale.unlink()
    return paths


def read_results(folder):
    """Every run of a cope_kb folder as one frame (:func:`write_results`' files; an older folder's single
    ``results.csv`` reads the same); an empty frame when the folder has none."""
    from pathlib import Path

    import pandas as pd

    folder = Path(folder)
    files = [f for f in [folder / "results.csv", *sorted(folder.glob("fig3_rank*.csv"))] if f.exists()]
    if not files:
        return pd.DataFrame()
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True)


# ------------------------------------------------------------------------------ theorem checks
def theory_params(mode: str = "quick") -> dict:
    check("mode", mode, one_of("quick", "full"))
    full = dict(c1_deltas=[0.1, 0.2], c1_runs=10, c2_V=[1, 2, 4, 8, 16], c2_runs=20, c2_delta=0.2,
                c3_deltas=[0.1, 0.2, 0.3, 0.4, 0.6, 0.8], c3_runs=10,
                c6_xis=[1e-8, 1e-6, 1e-4, 1e-2, 1e-1, 1.0], c6_runs=20, c6_delta=0.1)
    quick = dict(full, c1_runs=5, c2_V=[1, 2, 4, 8], c2_runs=5, c3_runs=5, c6_runs=5)
    return full if mode == "full" else quick


def run_c1(p, tp, seed=0, n_jobs=1, backend="loky", cache_dir=None, progress=True):
    """C1 (Cor. 1c): S_CoKernelFC / S_IndRAGE vs g/V for g = 1..V task groups, both constants."""
    frames = []
    for constants, runs in (("theory", 1), ("practical", tp["c1_runs"])):
        frames.append(run_fc(p, seed, n_jobs, backend, cache_dir, progress, constants=constants,
                             methods=["CoKernelFC", "IndRAGE"], deltas=tp["c1_deltas"],
                             cases=list(range(1, p["V"] + 1)), runs=runs))
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def run_c2(p, tp, seed=0, n_jobs=1, backend="loky", cache_dir=None, progress=True):
    """C2: rank 1 and rank V, V ∈ c2_V agents, Δ = c2_delta: S vs V."""
    import pandas as pd

    frames = []
    for V in tp["c2_V"]:
        q = dict(p, V=V)
        for rank, label in ((1, "rank 1"), (V, "rank V")):
            f = run_fc(q, seed, n_jobs, backend, cache_dir, progress, methods=["CoKernelFC"],
                       deltas=[tp["c2_delta"]], cases=[rank], runs=tp["c2_runs"])
            frames.append(f.assign(V=V, case=label))
    return pd.concat(frames, ignore_index=True)


def run_c6(p, tp, seed=0, n_jobs=1, backend="loky", cache_dir=None, progress=True):
    """C6 (Remark 1 / Theorem 1's small-ξ condition): CoKernelFC at rank 1, Δ = c6_delta, over ξ."""
    import pandas as pd

    frames = [run_fc(dict(p, xi=xi), seed, n_jobs, backend, cache_dir, progress, methods=["CoKernelFC"],
                     deltas=[tp["c6_delta"]], cases=[1], runs=tp["c6_runs"]).assign(xi=xi)
              for xi in tp["c6_xis"]]
    return pd.concat(frames, ignore_index=True)
