# ---
# jupyter:
#   bandits:
#     datasets:
#     - magic
#     - shuttle
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
# # The arena: every method of the five papers, regret against communication
#
# No paper compares DUETS, DisKernelUCB, Approx-DisKernelUCB, Async-KernelUCB, FN-UCB, Coop-KernelUCB and
# their baselines with each other. Here they share environments (h1, Hartmann-4, FN-UCB's cosine,
# Async-KernelUCB's f1, the MAGIC and shuttle classification bandits), seeds (run r of every method sees the
# same arms and noise) and **one communication unit: scalars sent, up + down, from the ledger**. Two
# protocols: synchronous federated (every agent acts every round; Coop/Eager-KernelUCB on the complete
# graph, γ = 1) and asynchronous (one client per step).
#
# Every method's own knob is swept (D, thresholds, β, ν, η): each (method, value) is one point of the
# Pareto plot, final regret against total communication. The claims are the project's own, fixed in
# `bandits/experiments/arena.py` before the runs.
#
# * `mode="quick"` (default): N = 4, T = 40 (sync), N = 5, T = 150 (async), two values per knob, 3 runs.
#   A few minutes on 2 cores.
# * `mode="full"`: N = 10, T = 200 (sync), N = 50, T = 2000 (async), the full knob grids, 3 runs
#   (`n_runs` raises it: 5 take about 5/3 as long). About 2 hours on 2 cores.

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0                # master seed: run r uses the r-th child of SeedSequence(seed)
n_jobs = 2              # worker processes
backend = "loky"        # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler ("tcp://host:8786"), used with backend "dask"
out = "results/quick/arena"   # output folder (relative paths are from the repository root)
cache_dir = None        # None: $BANDITS_CACHE_DIR or cache/
envs = None             # None: all six, or a subset of ["h1", "hartmann4", "cosine", "f1", "magic", "shuttle"]
protocols = None        # None: ["sync", "async"]
n_runs = None           # None: the mode's value

# %%
from bandits.experiments.notebook import start_notebook, finish_notebook, default_cache_dir
from bandits.experiments import arena as ex

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                         scheduler=scheduler, datasets=["magic", "shuttle"])   # every parameter checked first
params = ex.arena_params(mode, envs=envs, protocols=protocols, n_runs=n_runs)
{k: v for k, v in params.items() if k != "grids"}

# %% [markdown]
# ## Who runs where
#
# A method that cannot run in a protocol or on an environment is listed with the reason.

# %%
import pandas as pd
pd.set_option("display.max_colwidth", 120)
ex.support_table(params)

# %%
res = ex.run_arena(params, seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir(),
                   scheduler=scheduler)
print(f"{res.n_computed} runs computed, {res.n_cached} loaded from the cache")
res.runs.to_csv(out_dir / "results.csv", index=False)     # one row per run: R(T), C, messages, rounds
res.points.to_csv(out_dir / "points.csv", index=False)    # one row per (method, knob value): means, front
ex.failures(res)   # runs that broke down numerically: listed here, left out of the means

# %% [markdown]
# ## The Pareto plots
#
# Final regret R(T) against total communication C (scalars, up + down; log scale; methods that never
# communicate are drawn at the left edge, marked "C = 0"), one point per method and knob value with ±1 s.e.
# over runs; the non-dominated points are circled and joined by the dashed front.

# %%
from bandits.plotting import save_figure
for protocol in params["protocols"]:
    fig = ex.plot_pareto(res, protocol)
    save_figure(fig, out_dir, f"pareto_{protocol}")

# %% [markdown]
# ## The fronts, and the ranking at fixed communication budgets
#
# Messages and rounds are the secondary units (a broadcast counts once per receiver; a round is a step at
# which anything was sent).

# %%
ex.front_table(res).round(1)

# %%
bt = ex.budget_table(res)
bt.to_csv(out_dir / "budgets.csv", index=False)
ex.budget_winners(res)

# %% [markdown]
# ## Claims
#
# The project's own hypotheses (not a paper's claims), stated in `bandits/experiments/arena.py` before
# any run; each rests on paired comparisons over the shared runs with Student t intervals (calibrated
# at small n, `docs/statistics.md`), PASS / FAIL / INCONCLUSIVE. No point is picked on the runs that
# test it: "some point of A beats every point of B" is tested over all points, every part of a "some"
# at the Bonferroni level, as the front claims are. A run that broke down counts as the worst outcome
# of its comparison. With 3 runs per point and Bonferroni levels only large effects PASS.

# %%
# NBVAL_CHECK_OUTPUT
claims = ex.arena_claims(res)
finish_notebook(claims, {k: v for k, v in params.items()}, seed=seed, out_dir=out_dir,
                notebook="arena.ipynb", mode=mode, n_jobs=n_jobs, backend=backend,
                about={"paper": "arena (issue 12)"})
