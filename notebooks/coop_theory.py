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
# # Coop-KernelUCB: the theory, checked (C1–C10)
#
# Empirical checks of the theorems, lemmas and the conjecture of Dubey & Pentland, *Kernel Methods for
# Cooperative Multi-Agent Contextual Bandits* (ICML 2020), as this package checks them
# (the paper states no empirical check; the grids and thresholds are ours): the 1/√V rate (C1), the √χ̄(G_γ) dependence (C2), Dist- vs
# Coop-KernelUCB where α(G_γ) ≪ χ̄(G_γ) (C3), heterogeneity Υ_z (C4), regret vs T (C5), Lemma 3's
# per-clique variance bound in runs and on an adversarial sequence (C6), Lemma 4 (C7), Lemma 2's MMD
# consistency (C8), the Eager conjecture (C9) and the communication per round (C10).
#
# Every check, its threshold and its interval method are fixed in `bandits/experiments/coop_theory.py`
# before the runs. The regret checks use the oracle `K_z` (the theorems assume it known), linear `K_x`,
# η = 1, λ = 1, noise N(0, 0.1²); C5 uses the Figure-1 setup with the estimated `K̂_z`.
#
# * `mode="quick"` (default): T = 100, 4 runs, MMD samples up to t = 4096. Under 3 minutes on 2 cores.
# * `mode="full"`: T = 200, 10 runs, t up to 10⁴ (C8), C5 at V = 40, T = 300. Minutes.

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0                # master seed: run r uses SeedSequence(seed).spawn(...)[r] (shared by every method)
n_jobs = 2              # worker processes
backend = "loky"        # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler ("tcp://host:8786"), used with backend "dask"; None: $DASK_SCHEDULER_ADDRESS, else a local cluster
out = "results/quick/coop_theory"   # output folder (relative paths are from the repository root)
cache_dir = None        # None: $BANDITS_CACHE_DIR or cache/
n_runs = None           # None: the mode's value (quick 4, full 10)
T = None                # None: the mode's horizon (quick 100, full 200)
decide_schedule = None  # sequential step on `out` after the claims (docs/statistics.md): None: none; "auto": n0, 2 n0, 4 n0, 8 n0 runs; or run counts "3,6,12", n0 first (the tested runs: quick 4, full 10)
decide_budget_s = None  # CPU seconds the step may add, as each stage is estimated (docs/statistics.md, the step); None: no limit
decide_spending = "obf" # the step's alpha spending: "obf" (O'Brien-Fleming) or "pocock"

# %%
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")   # tiny per-agent matrices: threaded BLAS only slows them down
from bandits.experiments.notebook import start_notebook, finish_notebook, check_decide, default_cache_dir
from bandits.experiments import coop_theory as ex
from bandits.experiments import coop_theory_claims as cl, coop_theory_plots as pl
from bandits.plotting import save_figure

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                         scheduler=scheduler)   # every parameter checked first
params = ex.theory_params(mode, n_runs=n_runs, T=T)
check_decide("coop_theory", params, decide_schedule, decide_budget_s, decide_spending)   # the sequential step's parameters, before any run
params

# %% [markdown]
# ## Runs (C1–C5, C9, C10) and the exact computations (C7, C8)

# %%
res = ex.run_theory(params, seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir())
print(f"{res.computed} runs computed, {res.cached} loaded from the cache")
res.runs.to_csv(out_dir / "results.csv", index=False)       # one row per run: check, method, grid value, R̂(T)
res.curves.to_csv(out_dir / "c5_curves.csv", index=False)   # C5: R̂(t) per round
res.c6.to_csv(out_dir / "c6_lemma3.csv", index=False)
res.c7.to_csv(out_dir / "c7_lemma4.csv", index=False)
res.c8.to_csv(out_dir / "c8_mmd.csv", index=False)
fig = pl.plot_theory(res)
save_figure(fig, out_dir, "theory")

# %% [markdown]
# ## Mean R̂(T) per check, method and grid value

# %%
res.runs.groupby(["check", "method", "x"]).R_T.agg(["mean", "sem"]).round(3)

# %% [markdown]
# ## Claims
#
# Each check with its quoted statement, the tested number, a 95 % interval and a verdict: the
# correlations (C2, C9) bootstrapped over runs; the paired comparisons (C3, C4) Student's t or
# Fieller's over runs; the slopes (C1, C4, C5, C8) Student's t over one log–log slope per run (the
# points of one run share its seeds or lie on one trajectory; the runs are independent), a range
# being two one-sided parts that must both hold. C6, C7 and C10 are exact
# computations (no interval). C6's adversarial probe is a sequence the lemma's statement covers (any
# actions): a FAIL there is a counterexample to Lemma 3 as stated (the proof's step (15) bounds the
# variance at x̃_{v,t} by one at another point, x̃_{v,t−γ}).

# %%
# NBVAL_CHECK_OUTPUT
claims = cl.theory_claims(res)
finish_notebook(claims, params, seed=seed, out_dir=out_dir,
                notebook="coop_theory.ipynb", mode=mode, n_jobs=n_jobs, backend=backend,
                about={"paper": "Coop-KernelUCB", "figure": "theory"},
                decide_schedule=decide_schedule, decide_budget_s=decide_budget_s, decide_spending=decide_spending,
                cache_dir=cache_dir)
