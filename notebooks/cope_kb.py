# ---
# jupyter:
#   bandits:
#     datasets: []
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: bandits
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # CoPE-KB: collaborative pure exploration in kernel bandits (Figures 1–3 and the theorem checks)
#
# Reproduces Du et al., *Collaborative Pure Exploration in Kernel Bandit*: **CoKernelFC** (fixed
# confidence, Figure 2) and **CoKernelFB** (fixed budget, Figure 3) against the ablations
# CoKernel-IndAlloc / CoKernelFB-IndAlloc and the single-agent baselines IndRAGE (and the ideal
# IndRAGE/V), IndALBA, IndPolyALBA (a reconstruction), IndPeaceFB and IndUniformFB, on the paper's
# instance: V = 5 agents, 6 "two-hot" arms each, tasks identical (rank(K_Z) = 1), similar (2) or all
# different (V). Then the checks of Theorems 1–2 and Corollary 1: C1–C6, C8, the three bounds of
# Corollary 1 (C7, `bandits.experiments.cope_theory`), Peace's Gaussian width beside its ω proxy, and a
# nonlinear RKHS instance (C9: product RBF kernel, CoKernelFC vs IndRAGE as the tasks become similar).
#
# * `mode="quick"` (default): Δ_min ∈ {0.1, 0.2, 0.4, 0.8}, 10 runs (3 for the ALBA family), budgets
#   {7k, 30k, 100k, 300k} with 40 runs; C9 on 8 random instances × 2 runs. Roughly a minute and a half
#   on 2 idle cores (an estimate: about a minute before issue 13 plus ~30 s CPU for C7, the width and
#   C9; measured only on a loaded machine: 4 min 53 s wall with a cold cache at load average 10 on 2
#   shared cores).
#   C7 and the Peace width are deterministic / fixed-seed computations, the same in both modes.
# * `mode="full"`: the paper's 50 runs (FC) and 100 runs (FB) on the grids Δ_min ∈ {0.1, …, 0.8} and
#   T ∈ {7k, …, 300k}; C9 on 20 instances × 3 runs.
#
# Choices where the paper is silent (Δ grid, T grid, Δ_min = 0.02 for Figure 3, ξ = 1e-6, N(0,1)
# noise, the sample-size constant) are listed in `bandits/experiments/cope_kb.py` and the README.

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0
n_jobs = 2
backend = "loky"        # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler ("tcp://host:8786") for backend="dask"; None: $DASK_SCHEDULER_ADDRESS, else a local cluster
out = "results/quick/cope_kb"
cache_dir = None
constants = "practical" # sample-size constant of every RAGE-family method: "practical" (RAGE code) | "theory" (paper)

# %%
import numpy as np
import pandas as pd
from bandits.runner import resolve_scheduler
from bandits.experiments.common import (validate_common, resolve_out, default_cache_dir,
                                        claims_table, write_claims, write_provenance)
from bandits.experiments import cope_kb as ex
from bandits.plotting import save_figure

validate_common(mode, seed, n_jobs, backend, out)
resolve_scheduler(scheduler, backend)   # validated; every dask sweep below then uses that cluster
params = ex.cope_params(mode, constants=constants)
tparams = ex.theory_params(mode)
out_dir = resolve_out(out)
out_dir.mkdir(parents=True, exist_ok=True)
kw = dict(seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir())
params

# %% [markdown]
# ## Figure 1: sharing through the kernel (worked example)
#
# Two agents and three items; agent 1 holds items 1, 2 and agent 2 holds items 2, 3; the tasks are the
# same (z₁ = z₂). The paper's figure gives the rewards 3+√2, 4+2√2, 5+3√2; its kernel is lost in the
# text extraction, so we use a consistent reconstruction, k_X(x,x') = (1 + xx')². Agent 1 pulls only
# item 2; through the kernelised estimator (which uses only per-arm counts and means), agent 2's
# estimate of its own item 2 improves, and so do items it never pulled.

# %%
from bandits.envs.cope import toy_instance
from bandits.algorithms.pe_common import kernel_estimate
toy = toy_instance()
K = toy.gram()
rng = np.random.default_rng(seed)
rows = []
for label, counts in (("no data", [0, 0, 0, 0]), ("agent 1 pulls item 2 (100x)", [0, 100, 0, 0]),
                      ("+ agent 2 pulls item 3 (100x)", [0, 100, 0, 100])):
    c = np.array(counts)
    means = np.where(c > 0, toy.F.ravel() + rng.standard_normal(4) / np.sqrt(np.maximum(c, 1)), 0.0)
    est = kernel_estimate(K, c, means, xi=1e-3)
    rows.append({"data": label, "agent 2, item 2": est[2], "agent 2, item 3": est[3]})
pd.DataFrame(rows).assign(**{"true item 2": toy.F[1, 0], "true item 3": toy.F[1, 1]}).round(3)

# %% [markdown]
# ## Figure 2: samples per agent vs Δ_min (fixed confidence, 95 % intervals)

# %%
fc = ex.run_fc(params, **kw)
fig = ex.plot_fig2(fc, params)
save_figure(fig, out_dir, "fig2")
ex.fc_summary(fc, params["V"]).pivot_table(index=["rank", "delta_min"], columns="method", values="mean").round(0)

# %% [markdown]
# ### The sample-size constant
#
# The paper's constant 32(1+ε)² is 17.6 times the RAGE code's 2(1+ε). With the paper's constant,
# IndALBA (whose constants are its own) beats IndRAGE, contradicting the paper's "IndRAGE is the best
# single-agent adaption"; with the code's constant the paper's ordering holds. The figures use one
# constant for every RAGE-family method (`constants` parameter); here is the other one.

# %%
other = "theory" if params["constants"] == "practical" else "practical"
fc_other = ex.run_fc(params, constants=other, methods=["CoKernelFC", "IndRAGE", "IndALBA"],
                     runs=3 if mode == "quick" else 10, **kw)
fig = ex.plot_fig2(fc_other, dict(params, fc_methods=["CoKernelFC", "IndRAGE", "IndALBA"]), constants=other)
save_figure(fig, out_dir, f"fig2_{other}_constants")
both = pd.concat([ex.fc_summary(fc, params["V"]), ex.fc_summary(fc_other, params["V"])])
t = both[both.method.isin(["IndRAGE", "IndALBA"])].pivot_table(index=["constants", "rank", "delta_min"], columns="method", values="mean")
t.assign(ALBA_beats_RAGE=t.IndALBA < t.IndRAGE).round(0)

# %% [markdown]
# ## Figure 3: error probability vs budget (fixed budget, Δ_min = 0.02)
#
# The dotted red line is CoKernelFB with two options the paper does not use: data pooled across rounds
# and R computed from within-agent pairs. On this instance plain uniform sampling *is* the XY-optimal
# design, and the halving rule stops after 2 of its R rounds, spending 50 % / 40 % / 33 % of the budget
# (rank 1 / 2 / V), so IndUniformFB is strong when tasks differ.

# %%
fb = ex.run_fb(params, **kw)
fig = ex.plot_fig3(fb, params)
save_figure(fig, out_dir, "fig3")
fb.assign(err=~fb.all_correct.astype(bool)).pivot_table(index=["rank", "T"], columns="method", values="err").round(3)

# %% [markdown]
# ## Theorem checks: speedup vs similarity (C1), vs the number of agents (C2), the regulariser ξ (C6)

# %%
c1 = ex.run_c1(params, tparams, **kw)
c2 = ex.run_c2(params, tparams, **kw)
c6 = ex.run_c6(params, tparams, **kw)
fig = ex.plot_c1(c1, params)
save_figure(fig, out_dir, "c1_speedup_vs_similarity")
results = pd.concat([fc.assign(part="fig2"), fc_other.assign(part=f"fig2_{other}"), fb.assign(part="fig3"),
                     c1.assign(part="C1"), c2.assign(part="C2"), c6.assign(part="C6")], ignore_index=True)
results.to_csv(out_dir / "results.csv", index=False)
display(c2.groupby(["case", "V"])["S"].mean().unstack("case").round(0))
c6.groupby("xi").agg(S=("S", "mean"), error=("all_correct", lambda x: 1 - x.astype(bool).mean()), rounds=("rounds", "mean"))

# %% [markdown]
# ## Corollary 1's bounds (C7), Peace's Gaussian width, a nonlinear RKHS instance (C9)
#
# **C7.** ρ*(ξ) (the gap-normalised XY design over all nV pairs, certified by its duality gap), the
# maximum information gain Υ and its design λ*, d_eff, rank(K_Z) and rank(K_X,λ*), and the three bounds
# of Corollary 1, on the three similarity cases (Δ_min ∈ {0.1, 0.2, 0.4, 0.8}, ξ ∈ {1e-6, 1e-2}) and on
# one C9 instance per ℓ_z. These are proved inequalities with a large slack here: the check can only
# catch an implementation error (weak by construction).
#
# **Peace.** The official Peace complexity, the Gaussian width γ, beside the ω proxy that IndPeaceFB
# uses by default, for the best-first prefixes of one agent's arms, and the number of rounds each gives.
#
# **C9.** Random nonlinear instances (product RBF kernel, arms in [0,1]², Δ_min = 0.05): the ratio
# S(CoKernelFC)/S(IndRAGE) as the task lengthscale ℓ_z grows (tasks more similar).

# %%
from bandits.experiments import cope_theory as ct
ttp = ct.cope_theory_params(mode)
c9 = ct.run_c9(ttp, **kw)
c7 = ct.c7_table(ttp, extra_instances=[(f"RBF ℓ_z={e:g} #0", ct.nonlinear_instance(e, 0, V=ttp["c9_V"], n=ttp["c9_n"],
                 ell_x=ttp["c9_ell_x"], delta_min=ttp["c9_delta_min"])) for e in ttp["c9_ell_z"]])
pw = ct.peace_width_table(ttp, seed=seed)
c7.to_csv(out_dir / "c7_corollary1.csv", index=False)
pw.to_csv(out_dir / "peace_gaussian_width.csv", index=False)
pd.concat([results, c9.assign(part="C9")], ignore_index=True).to_csv(out_dir / "results.csv", index=False)
display(c7[["instance", "xi", "delta_min", "rho_star", "upsilon", "d_eff", "rank_KZ", "rank_KX_lam",
            "slack_a", "slack_b", "slack_c"]].round(2))
display(pw[["prefix_size", "omega", "gamma", "gamma_lo", "gamma_hi", "kept"]].round(3))
c9.groupby(["ell_z", "method"]).agg(S=("S", "mean"), rounds=("rounds", "mean"), rank_KZ=("rank_KZ", "mean"),
                                    correct=("all_correct", "mean")).round(2)

# %%
# NBVAL_CHECK_OUTPUT
claims = (ex.fc_claims(fc, params) + ex.fb_claims(fb, params) + ex.theory_claims(c1, c2, fc, fb, params, tparams, c6)
          + ct.c7_claims(c7) + ct.peace_claims(pw) + ct.c9_claims(c9, ttp))
write_claims(claims, out_dir, {"paper": "CoPE-KB", "figures": "1-3 and theorem checks", "mode": mode})
write_provenance(dict(params, theory=tparams, theory13=ttp), seed, out_dir, {"notebook": "cope_kb.ipynb", "mode": mode,
                 "n_jobs": n_jobs, "backend": backend})
print(claims_table(claims))
