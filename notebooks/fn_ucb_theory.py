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
# # FN-UCB: empirical checks of the theory
#
# Checks of Dai et al., *Federated Neural Bandits* (ICLR 2023), Theorems 1 and 2, on the paper's synthetic
# cosine bandit with FN-UCB (Less Comm.) and App. E's text training (FN-UCB's default, `nn_mode="own_prev"`:
# every agent warm-starts from its own last parameters, 30 steps of lr 0.01 per round). The check labels (E2–E14) and thresholds are this package's. The checks
# with N or D varying (E2, E5, E6) are also run with the official code's training on its environment (one
# shared network trained 30·N steps per round, training sets growing only at rounds), the training behind the
# paper's numbers; their claims carry the suffix `-official`:
#
# * **E4** Theorem 2's counting bound `C_T ≤ ⌈T/ζ⌉ + ⌈R_emp ζ/D⌉` in every run;
# * **E5** communication rounds vs D against Theorem 2's `√(1/D)` scaling (log–log slope with its SE);
# * **E6** rounds vs N with `D ∝ T/N` (Theorem 2's `√N`);
# * **E7** bad epochs ≤ R_emp;
# * **E3** sublinear regret in T, and only UCB_a (α ≡ 0) steeper;
# * **E13** the effective dimension (the trigger's potential) grows sublinearly;
# * **E2** federation ≈ centralisation: N = 4 agents for T steps vs one agent for 4T, and R_T(N) vs N;
# * **E8** the theory α = σ_min/σ_max (Sec. 3.3) rises with t (N = 1, UCB_a only);
# * **E12** UCB_a's coverage `h(x) ≤ UCB_a(x)` (Lemma 3) vs ν, with the paper's NTK features;
# * **E14** the linearisation error of Lemma 4 (step 1) shrinks with the width m.
#
# Every threshold is fixed in `bandits/experiments/fn_ucb_theory/` (the package docstring) before the runs.
# E1 and E9–E11 are claims of the figures notebook (`fn_ucb`; listed below).
#
# * `mode="quick"` (default, about 1–2 minutes on 2 cores): T = 500, 3 runs, D ∈ {1, 2.5, 5, 10, 20}, N ∈ {1, 2, 4, 8};
#   E2 at T = 250 (N ∈ {1, 2, 4}), E8 at T = 500, E12 at m = 64, T = 250, E14 at m ∈ {32, 128}.
# * `mode="full"`: this package's full-mode sizes, T = 1000 (E3 at T = 2000), 3 runs, D ∈ {0.5, 1, 2.5, 5, 10, 20};
#   E2 at T = 1000 (N ∈ {1, 2, 4, 8}), E8 at T = 1000, E12 at m = 256, T = 500, E14 at m ∈ {32, 128, 512}.

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0                # master seed: run r uses SeedSequence(seed).spawn(...)[r]
n_jobs = 2              # worker processes
backend = "loky"        # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler ("tcp://host:8786"), used with backend "dask"; None: $DASK_SCHEDULER_ADDRESS, else a local cluster
out = "results/quick/fn_ucb_theory"  # output folder (relative paths are from the repository root)
cache_dir = None        # None: $BANDITS_CACHE_DIR or cache/
device = "cpu"          # torch device of the networks: "cpu" (the tested default), "cuda", or "auto" (CUDA when torch sees a GPU)
decide_schedule = None  # sequential step on `out` after the claims (docs/statistics.md): None: none; "auto": n0, 2 n0, 4 n0, 8 n0 runs; or run counts "3,6,12", n0 first (the tested runs: quick 3, full 3)
decide_budget_s = None  # CPU seconds the step may add, as each stage is estimated (docs/statistics.md, the step); None: no limit
decide_spending = "obf" # the step's alpha spending: "obf" (O'Brien-Fleming) or "pocock"

# %%
from bandits.experiments.notebook import start_notebook, finish_notebook, check_decide, default_cache_dir
from bandits.experiments import fn_ucb_theory as th
from bandits.experiments.fn_ucb_theory import claims as th_claims, plots as th_plots
from bandits.plotting import save_figure

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                         scheduler=scheduler)   # every parameter checked first
params = th.theory_params(mode, device=device)
check_decide("fn_ucb_theory", params, decide_schedule, decide_budget_s, decide_spending)   # the sequential step's parameters, before any run
res = th.run_theory(params, seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir())
print(f"{res.n_computed} runs computed, {res.n_cached} loaded from the cache")
res.runs.to_csv(out_dir / "results.csv", index=False)     # one row per check and run
res.curves.to_csv(out_dir / "curves.csv", index=False)    # E3/E13: R̄(t) and the potential per run

# %% [markdown]
# ## E4–E7: communication rounds vs D and vs N, with Theorem 2's bound

# %%
save_figure(th_plots.plot_rounds(res), out_dir, "rounds")
# checks ending in "o" (E5o, E6o): the official code's training on its environment
res.runs[res.runs.D > 0].groupby(["check", "N", "D"])[["rounds", "bound", "R_emp", "bad_epochs", "R_T"]].mean().round(1)

# %% [markdown]
# ## E3, E13: regret growth in T and the potential

# %%
save_figure(th_plots.plot_regret(res), out_dir, "regret_potential")

# %% [markdown]
# ## E2, E8, E12, E14: federation vs centralisation, the theory α, UCB_a coverage, linearisation error

# %%
save_figure(th_plots.plot_more(res), out_dir, "more_checks")
res.alpha.to_csv(out_dir / "alpha.csv", index=False)         # E8: theory α per run and logged t
res.coverage.to_csv(out_dir / "coverage.csv", index=False)   # E12: coverage per ν and run
res.linear.to_csv(out_dir / "linearisation.csv", index=False)  # E14: errors per width and run
res.linear.groupby("m")[["err", "err_lin", "err_opt", "dist_ratio"]].mean()

# %% [markdown]
# ## Checks of the figures notebook

# %%
for k, v in th.NOT_DONE.items():
    print(f"{k}: {v}")

# %% [markdown]
# ## Claims
#
# Each check is fixed in the module before the runs. PASS/FAIL of a deterministic bound (E4, E7) is
# exact (both are counting facts of the trigger rule, hence implementation checks); the slopes are judged on
# their 95% interval. E2, E5 and E6 are judged for both trainings: a claim that fails with App. E's text
# training and passes with the official code's is a training effect (see `figures/fn_ucb/NOTE.md`). Reading E6: Theorem 2 is an *upper* bound
# (`C_T = Õ(d̃√N)`), while this package's E6 check asks for growth "roughly ∝ √N" (slope in [0.2, 0.8]);
# a slope below 0.2 fails that check without contradicting the theorem's bound. Reading E12: Lemma 3's
# ν_TKN = B + R√(…) is not computed (B, a bound on h's NTK norm, is unknown), so low coverage at a small ν
# does not contradict the lemma; the check is that coverage rises toward 1 with ν. Reading E8: the paper expects α to increase; its level
# (well below 1, unlike the experiments' linear ramp to 1) is reported in the claim's number.

# %%
# NBVAL_CHECK_OUTPUT
claims = th_claims.theory_claims(res)
finish_notebook(claims, params, seed=seed, out_dir=out_dir,
                notebook="fn_ucb_theory.ipynb", mode=mode, n_jobs=n_jobs, backend=backend,
                about={"paper": "FN-UCB", "figure": "theory checks"},
                decide_schedule=decide_schedule, decide_budget_s=decide_budget_s, decide_spending=decide_spending,
                cache_dir=cache_dir)
