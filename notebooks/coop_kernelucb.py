# ---
# jupyter:
#   bandits:
#     datasets:
#     - ego-facebook
#     - twitch
#     - as-733
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
# # Coop-KernelUCB, Figure 1: cooperative kernel bandits on four networks
#
# Reproduces Figure 1 of Dubey & Pentland, *Kernel Methods for Cooperative Multi-Agent Contextual
# Bandits* (ICML 2020): per-agent cumulative regret `R̂(t) = (1/V) Σ_v Σ_{s≤t} (f_v(x*_{v,s}) − f_v(x_{v,s}))`
# vs round t, 2 rows (linear `K_x` with a clustered `K_z`; RBF `K_x` and RBF `K_z`) × 4 networks
# (Erdős–Rényi(V, 0.7), ego-Facebook, musae-Twitch, and the SNAP **as-733** snapshot standing in for
# as-Skitter, which is not in the shared data), 8 random contexts in R¹⁰ per agent and round, λ = 1,
# σ_z = 1, `K_z` estimated online by MMD (Eq. 10–12). Six methods per row as in the paper
# (LinUCB, OFUL / KernelUCB, IGP-UCB, Naive Cooperation, Coop-, Dist-, Eager-KernelUCB); with
# `rank_cap_ablation=4` (off by default; the committed full-mode figure ran it) also, on the RBF row, Coop,
# Dist and Eager with the rank of `K̂_z` capped at 4 (dashed: an ablation); with
# `ablations=True`, dashed curves that are not in the paper: Coop and Eager with the oracle `K_z`, and
# (RBF row) Eager with σ_z = 0.5. Mean ± 1 standard error over trials; each panel's title gives γ = ⌊diam/2⌋, the size of the
# greedy clique cover of G_γ (≥ χ̄(G_γ)) and the number of Dist-KernelUCB centres (≤ α(G_γ)).
#
# * `mode="quick"` (default): V = 32, T = 120 (linear) / 100 (RBF), 4 trials; a few minutes at most on
#   2 cores (see the README for the measured time).
# * `mode="full"`: the paper's per-run size V = 200, T = 1000 (T is not stated in the paper), with
#   `n_runs = 10` of the paper's 100 trials per panel (100 are days on 2 cores; raise `n_runs` on a
#   cluster with `backend="dask"`): 480 runs; the rank-cap-4 ablation (`rank_cap_ablation=4`) adds 120, the
#   oracle and σ_z ablations (`ablations=True`) 200. The time on 2 cores, from the runs' own recorded times,
#   is in `figures/TIMES.md`.
#
# The paper leaves T, the noise, the contexts, the reward construction, η and the graph sampler unstated;
# our choices are listed in `bandits/experiments/coop_kernelucb.py` and `bandits/envs/coop.py`.
# The SNAP graphs are read from `$BANDITS_DATA_DIR` (`make data`).

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0                # master seed: trial r uses SeedSequence(seed).spawn(...)[r] (shared by all methods)
n_jobs = 2              # worker processes
backend = "loky"        # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler ("tcp://host:8786"), used with backend "dask"; None: $DASK_SCHEDULER_ADDRESS, else a local cluster
out = "results/quick/coop_kernelucb"   # output folder (relative paths are from the repository root)
cache_dir = None        # None: $BANDITS_CACHE_DIR or cache/
n_runs = None           # trials per panel; None: the mode's value (quick 4, full 10 of the paper's 100)
graphs = None           # None: all four, or a subset of ["er", "ego-facebook", "twitch", "as733"]
rows = None             # None: both, or a subset of ["linear", "rbf"]
V = None                # None: the mode's value (quick 32, full 200)
T_linear = None         # None: the mode's value (quick 120, full 1000)
T_rbf = None            # None: the mode's value (quick 100, full 1000)
r_limit_rbf = None      # rank cap of the estimated K_z on the paper's RBF-row curves; None: no cap (both modes; the safeguard keeps ≥ 95 % of each agent's own variance)
rank_cap_ablation = None  # the RBF-row ablation: Coop, Eager, Dist with the rank of K_z capped at this (dashed); None: off (0) in both modes; 4 adds the committed figure's dashed curves
cluster_mode = None     # clusters of the agents: None: "mis_star" (Dist's stars, our reading of §5) or "clique_cover" (Coop's cliques)
ablations = False       # True adds the dashed curves not in the paper (oracle K_z on both rows, Eager with σ_z 0.5 on the RBF row)
decide_schedule = None  # sequential step on `out` after the claims (docs/statistics.md): None: none; "auto": n0, 2 n0, 4 n0, 8 n0 runs; or run counts "4,8,16", n0 first (the tested runs: quick 4, full 10)
decide_budget_s = None  # CPU seconds the step may add, as each stage is estimated (docs/statistics.md, the step); None: no limit
decide_spending = "obf" # the step's alpha spending: "obf" (O'Brien-Fleming) or "pocock"

# %%
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")   # tiny per-agent matrices: threaded BLAS only slows them down
from bandits.experiments.notebook import start_notebook, finish_notebook, check_decide, default_cache_dir, write_results_csv
from bandits.experiments import coop_kernelucb as ex
from bandits.experiments import coop_kernelucb_claims as cl, coop_kernelucb_plots as pl
from bandits.plotting import save_figure

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                         scheduler=scheduler, datasets=["ego-facebook", "twitch", "as-733"])   # every parameter checked first
params = ex.fig1_params(mode, n_runs=n_runs, graphs=graphs, rows=rows, V=V, T_linear=T_linear, T_rbf=T_rbf,
                        r_limit_rbf=r_limit_rbf, rank_cap_ablation=rank_cap_ablation, cluster_mode=cluster_mode,
                        ablations=ablations)
check_decide("coop_kernelucb", params, decide_schedule, decide_budget_s, decide_spending)   # the sequential step's parameters, before any run
params

# %% [markdown]
# ## Figure 1

# %%
res = ex.run_fig1(params, seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir())
print(f"{res.computed} runs computed, {res.cached} loaded from the cache")
write_results_csv(res.curves, out_dir / "results.csv", params["csv_stride"], keys=["row"])  # R̂(t), csv_stride-th t
res.runs.to_csv(out_dir / "runs.csv", index=False)        # one row per run: R̂(T), wall time, deliveries
fig = pl.plot_fig1(res)
save_figure(fig, out_dir, "fig1")

# %% [markdown]
# ## The networks of the panels
#
# `cover` is the greedy clique cover of G_γ (Coop-KernelUCB's cliques; an upper bound on χ̄(G_γ)),
# `centres` the greedy maximal weighted independent set (Dist-KernelUCB; a lower bound on α(G_γ)),
# `cluster_sizes` the agent clusters of the bandit (stars around the centres, the largest split until
# there are at least two; our reading of §5's clusters "given by the independent sets" of G_γ).

# %%
ex.panel_table(res)

# %% [markdown]
# ## The truncation of K̂_z and what the estimate sees, per panel
#
# Each cooperative run factors its estimate `K̂_z ≈ L Lᵀ` at every refresh, with the rank raised until every
# agent keeps at least 95 % of its own prior variance (`‖L_v‖² ≥ 0.95 W_vv`); no rank cap by default.
# `rank_mean` / `rank_last` / `rank_max`: the rank over refreshes (mean over agents and trials),
# at the last refresh, and the largest; `min_kept_var`: the smallest `‖L_v‖²/W_vv` over agents, refreshes
# and trials; `capped`: agent-refreshes a rank cap left below 95 % (only the dashed `rank ≤ k` ablation
# asks for a cap). `kz_within`, `kz_across`, `kz_auc`: the panel's MMD estimate at its σ_z after T samples
# per agent (i.i.d. contexts; `bandits.experiments.coop_kernelucb.kz_separation`): mean `K̂_z` over same-cluster and
# different-cluster pairs and the probability that a same-cluster pair is above a different-cluster one;
# `kz_true_*`: the same means of the true `K_z`.

# %%
ex.rank_table(res)

# %% [markdown]
# ## Final per-agent regret R̂(T) (mean, s.e. over trials)

# %%
t = ex.summary_table(res)
t["mean"], t["sem"] = t["mean"].round(2), t["sem"].round(2)
t.pivot(index=["row", "method"], columns="graph", values="mean")

# %% [markdown]
# ## Claims
#
# The paper's claims about Figure 1 (§5, "Results Summary"), each checked per panel on R̂(T), paired
# over trials (trial r of every method shares the bandit, the contexts and the noise), with a 95 %
# interval by `bandits.claims`' default method and a three-valued verdict (PASS / FAIL / INCONCLUSIVE).
# "Perform similarly" is read as R̂_Coop / R̂_Dist within [0.8, 1.25] (our margin) and, as in the paper
# ("for the Erdos-Renyi"), checked on the Erdős–Rényi panels only. The dashed curves (the rank-cap
# ablation, the σ_z and oracle curves) enter no claim. `fig1-safeguard-*` are implementation checks: no
# run of the paper's curves truncated `K̂_z` below 95 % of an agent's own variance. A FAIL is a measured
# result, not an error; its `cause` line says whether it depends on a setting the paper does not give.
#
# A rank cap of 4 on `K̂_z` (below the safeguard) is kept as the dashed ablation only; the figure shows how
# far it moves each curve.
# With the linear row's clusters being Dist-KernelUCB's stars, a Dist centre pools its whole cluster and a
# Coop clique only part of one, which is why Coop / Dist is far from 1 there (`cluster_mode="clique_cover"`
# is the other reading of the paper's clusters).

# %%
# NBVAL_CHECK_OUTPUT
claims = cl.fig1_claims(res)
finish_notebook(claims, params, seed=seed, out_dir=out_dir,
                notebook="coop_kernelucb.ipynb", mode=mode, n_jobs=n_jobs, backend=backend,
                about={"paper": "Coop-KernelUCB", "figure": "1", "n_runs": params["n_runs"], "paper_runs": ex.PAPER_RUNS},
                decide_schedule=decide_schedule, decide_budget_s=decide_budget_s, decide_spending=decide_spending,
                cache_dir=cache_dir)
