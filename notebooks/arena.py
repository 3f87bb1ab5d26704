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
# same arms and noise) and **three communication units, from the ledger: scalars sent (up + down),
# messages, and rounds**. Two protocols: synchronous federated (every agent acts every round;
# Coop-KernelUCB on the complete graph, γ = 1) and asynchronous (one client per step).
#
# **Even tuning.** Every method's exploration is one multiplier g from a single shared grid (its
# UCB width, or DUETS' β, is g times the default), chosen per method and environment on *tuning runs*
# whose seeds are apart from the tested runs; then every method's own communication knob is swept with
# its chosen g. Each tested (method, communication value) is one point of the Pareto plots. The claims
# (`bandits/experiments/arena_claims.py`) are the package's own hypotheses (kind "hypothesis", counted apart from the papers' claims), fixed
# before the runs.
#
# * `mode="quick"` (default): N = 4, T = 40 (sync), N = 5, T = 150 (async), g ∈ {0.5, 2} on one tuning
#   run, two values per communication knob, 3 tested runs. About 1–4 minutes on 2 cores.
# * `mode="full"`: N = 10, T = 200 (sync), N = 50, T = 2000 (async), g ∈ {0.1, 0.2, 0.5, 1, 2, 5} on one
#   tuning run, the full communication grids, 5 tested runs; the map below. Its time on 2 cores, from the
#   runs' own recorded times: `figures/TIMES.md`.

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
n_runs = None           # None: the mode's value (tested runs per point)
map_overrides = None    # None, or a dict of the map's parameters to change (ex.map_params), e.g. {"Ns": [10, 100]}
decide_schedule = None  # sequential step on `out` after the claims (docs/statistics.md): None: none; "auto": n0, 2 n0, 4 n0, 8 n0 runs; or run counts "3,6,12", n0 first (the tested runs: quick 3, full 5)
decide_budget_s = None  # CPU seconds the step may add, as each stage is estimated (docs/statistics.md, the step); None: no limit
decide_spending = "obf" # the step's alpha spending: "obf" (O'Brien-Fleming) or "pocock"

# %%
from bandits.experiments.notebook import start_notebook, finish_notebook, check_decide, default_cache_dir
from bandits.experiments import arena as ex
from bandits.experiments import arena_claims as exc
from bandits.experiments import arena_plots as exp
from bandits.validation import check, rule

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                         scheduler=scheduler, datasets=["magic", "shuttle"])   # every parameter checked first
params = ex.arena_params(mode, envs=envs, protocols=protocols, n_runs=n_runs)
check("map_overrides", map_overrides, rule(lambda v: v is None or isinstance(v, dict), "None or a dict"))
mparams = ex.map_params(mode, **(map_overrides or {}))   # the map's parameters, checked here too
check_decide("arena", params, decide_schedule, decide_budget_s, decide_spending)   # the sequential step's parameters, before any run
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
res.runs.to_csv(out_dir / "results.csv", index=False)     # one row per tested run: R(T), C, messages, rounds, m
res.points.to_csv(out_dir / "points.csv", index=False)    # one row per (method, knob value): means, fronts
if res.tune is not None:
    res.tune.to_csv(out_dir / "tuning.csv", index=False)  # one row per tuning run (seeds apart)
ex.failures(res)   # runs that broke down numerically: listed here, left out of the means

# %% [markdown]
# ## The exploration multiplier chosen on the tuning runs
#
# Per protocol, environment and method: the g of the shared grid with the lowest mean R(T) on the tuning
# runs (at the method's reference communication value). `same_query`: the synchronous rounds in which
# every agent queried one candidate of a finite domain (OneKernelUCB's shared model; the arena runs its
# synchronous agents with GP-BUCB's batch rule, `batch="fantasy"`, so that they condition on each other's
# choices; see the module docstring).

# %%
pd.DataFrame([{"protocol": k[0], "env": k[1], "method": k[2], "g": v} for k, v in res.explore.items()]) \
    .pivot_table(index=["protocol", "method"], columns="env", values="g", sort=False)

# %%
q = res.points[res.points.protocol == "sync"]
q.pivot_table(index="method", columns="env", values="same_query", aggfunc="max", sort=False).round(1)

# %% [markdown]
# ## The Pareto plots, in three units
#
# Final regret R(T) against communication (log scale; methods that never communicate are drawn at the
# left edge, marked "0"), one point per method and communication value with ±1 s.e. over runs; the
# non-dominated points of that unit are circled and joined by the dashed front.

# %%
from bandits.plotting import save_figure
for protocol in params["protocols"]:
    for unit in ex.UNITS:
        fig = exp.plot_pareto(res, protocol, unit)
        save_figure(fig, out_dir, f"pareto_{protocol}" if unit == "scalars" else f"pareto_{protocol}_{unit}")

# %% [markdown]
# ## The fronts per unit, the headline, and the break-even rule
#
# The headline is computed from the runs: per unit, which method holds the low-regret end of the fronts
# (and where it does not), and which is on the most fronts. Beside it, the rule that decides Async-KernelUCB
# against OneKernelUCB's raw sharing: Σ_k (3 m_k² + d·m_k) < N·T·(d + 1) (m_k the dictionary size at
# exchange k), with the measured ratio of the two methods' C.

# %%
print(exc.headline_text(res))
exc.front_ends(res)

# %%
exc.break_even_table(res).round(3)

# %%
ex.front_table(res, "scalars").round(1)

# %%
bt = ex.budget_table(res)
bt.to_csv(out_dir / "budgets.csv", index=False)
ex.budget_winners(res)

# %% [markdown]
# ## The map: which method is best within a communication budget
#
# Asynchronous protocol, each method at the exploration multiplier the tuning above chose for it; for every
# number of clients N and checkpoint t, each budget B (scalars sent up to t) is labelled by the point with the
# lowest mean R(t) among those whose mean C(t) ≤ B. Hartmann-4 and shuttle are environments where the
# dictionary size m levels off, cosine one where it grows. Quick mode: Hartmann-4 only, N ∈ {5, 20},
# T = 300, one run (a picture of the method, not evidence); full mode: N ∈ {10, 100, 1000}, T = 10⁴
# (cosine 3·10³), t ∈ {10³, 3·10³, 10⁴}, 3 runs, Approx-DisKernelUCB at D ∈ {1, 10}. Each cell's winner is hatched where the runs
# do not separate it from the runner-up (paired 95 % interval of their R(t) difference).

# %%
mruns = ex.run_map(mparams, res.explore, seed=seed, n_jobs=n_jobs, backend=backend,
                   cache_dir=cache_dir or default_cache_dir(), scheduler=scheduler)
mruns.to_csv(out_dir / "map.csv", index=False)   # one row per run and checkpoint t: R(t), C(t)
for env in mparams["envs"]:
    save_figure(exp.plot_map(mruns, env), out_dir, f"map_{env}")
mtab = exp.map_table(mruns)
mtab.pivot_table(index=["env", "N", "t"], columns="budget", values="method", aggfunc="first", sort=False)

# %% [markdown]
# ## Claims
#
# The package's own hypotheses (not a paper's claims; a paper is cited only for context), stated in
# `bandits/experiments/arena_claims.py` before the runs; each rests on paired comparisons over the tested
# runs with Student t intervals (calibrated at small n, `docs/statistics.md`), PASS / FAIL /
# INCONCLUSIVE. No point is picked on the runs that test it: the exploration multipliers and comm-pays's
# communicating method are chosen on the tuning runs; "some point of A beats every point of B" is tested
# over all of A's points, every part of a "some" at the Bonferroni level. A run that broke down counts as
# the worst outcome of its comparison. The break-even check is an implementation check of the accounting.

# %%
# NBVAL_CHECK_OUTPUT
claims = exc.arena_claims(res)
finish_notebook(claims, {k: v for k, v in params.items()}, seed=seed, out_dir=out_dir,
                notebook="arena.ipynb", mode=mode, n_jobs=n_jobs, backend=backend,
                about={"paper": "arena"},
                decide_schedule=decide_schedule, decide_budget_s=decide_budget_s, decide_spending=decide_spending,
                cache_dir=cache_dir)
