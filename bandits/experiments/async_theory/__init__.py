r"""Empirical checks of Async-KernelUCB's theory (checks C1, C4–C7 of this package, each naming the lemma or theorem it tests).

Setting ("S5", a setting of this package: §5.1's synthetic setup, made smaller)
--------------------------------------------------------------------------------
Synthetic ``f1(x) = cos(3 xᵀθ*)`` in **d = 5**: 20 fresh arms per step and θ* uniform in the unit
ball of R⁵ (θ* drawn per run, ``env_seed = rep``), Gaussian noise 0.1, one client active per
step (i.i.d. uniform), N = 20, Gaussian kernel ``exp(−γ_k‖x − y‖²)`` with γ_k = 1, λ = 1,
α = 1 (Async) / β = 1 (Approx), ε = 0.5 so β = (1+ε)/(1−ε) = 3, T = 2000 (quick) or 3000
(full).

**Why d = 5 and not the registered f1 (d = 20).** A pilot with the registered f1 (d = 20,
γ_k = 0.1, where the effective dimension is moderate) gave regrets at the level of the random
policy for T ≤ 2000 (OneKernelUCB 131 vs random ≈ 175 at T = 1000; Async-KernelUCB with D = 1
*above* random), so a regret–communication comparison (C5) or a regret slope (C7) would compare
noise. With γ_k = 1 in d = 20 the effective dimension is in the hundreds (|S| ≈ 780 of 2000
points) and every run costs seconds. In d = 5 with γ_k = 1 the kernel methods learn (regret
≈ 80–350 against ≈ 860 for random play at T = 2000) and |S| stays at ≈ 100–800 (q = 0.25…4).
The environment is therefore built here (:func:`make_theory_env`, a
:class:`~bandits.envs.base.ContextualEnv` with the registered ``f1``/``f2`` formulas and the
unit-ball sampler, θ* from ``SeedSequence([env_seed, crc32("f1-d5")])``); nothing is added to the
shared modules.

**Runs.** Lemma 4.1 and Lemma D.1 are stated on the data the server has received, ``D_B``
(``γ̂ = ½ log det(I + K_{D_B}/λ)``, ``d_eff = Tr K(K+λI)⁻¹``, and the det-doubling epochs), which
the runner's :func:`~bandits.runner.run_cell` does not keep. :func:`run_theory_cell` is the same
pure function of ``(config, seed, rep)`` (same seeds :func:`~bandits.runner.run_seeds`, same loop
:func:`bandits.sim.run_regret`, common random numbers across algorithms) with the Async-KernelUCB
policy subclassed only to *record* the chosen contexts; the uploaded data are reconstructed from
``info()["comm_steps"]``/``["comm_clients"]`` and reduced to a few numbers inside the worker. It
runs through :func:`bandits.runner.sweep` (``fn=run_theory_cell``: cache, backends, one BLAS
thread per worker); identical runs shared between checks are computed once.

Uploaded-data quantities, one Cholesky of ``K_{D_B} + λI`` with the points in upload order:
``L_ss² = λ(1 + σ²_{s−1}(x_s))`` (exact posterior variance given the earlier uploads), so
``log det(I + K_{D_k}/λ) = Σ_{s ≤ n_k} log(L_ss²/λ)`` after every exchange k, ``γ̂ = ½`` of the
total, and ``d_eff = n − λ‖L⁻¹‖²_F``.

Checks and claims (thresholds fixed here before any result was looked at; a FAIL is reported)
-------------------------------------------------------------------------------------------------
* **C1 — Lemma 4.1** (dictionary size). Async over ``c1_q × c1_D``.
  - ``C1-size-bound``: in every run ``|S_B| ≤ 12β(1+βD) q γ̂`` (β = 3, γ̂ on ``D_B``).
  - ``C1-grows-with-q``: for every D of ``c1_D`` the mean ``|S_B|`` is strictly increasing along
    the (sorted) q grid.
  - ``C1-expectation`` (Lemma A.8): in every run ``|S_B|`` is within a factor 3 of
    ``Σ_s min(1, q σ̃²_{k−1}(x_s))`` (the sum of the RLS probabilities actually used).
  ``|S_B|/d_eff`` is reported, not thresholded.
* **C4 — Lemma D.1** (number of communications B). Async with ``q = c4_q`` over ``c4_D``
  (``"1/N^2"`` is resolved per N).
  - ``C4-B-decreasing``: mean B is non-increasing along the increasing D grid and
    ``B(max D) < B(min D)``.
  - ``C4-B-bound``: in every run ``B ≤ 2γ̂(N + 4β/D)``.
  - ``C4-epoch-bound``: in every run every det-doubling epoch (exchange k belongs to epoch
    ``⌊log₂ det(I + K_{D_{k−1}}/λ)⌋``) holds at most ``N + 4β/D`` exchanges.
  - ``C4-comm-decreasing``: mean ``C_T`` (total scalars, both directions) is non-increasing in D.
  - ``C4-comm-bound`` (Theorem 4.5): in every run
    ``C_T ≤ 2γ̂(N + 4β/D)·(3(|S_B|² + |S_B|) + d|S_B|)``.
* **C5 — §5.2's headline** ("much smaller communication cost ... comparable or even better
  regret than Approx-DisKernelUCB"). Async over ``c5_q × c5_D``; Approx-DisKernelUCB with Figure 2's
  trigger (the variance sum ``Σ_{s∈ΔD_n} σ̃²_last(x_s) > D``, q̄ = q) over
  ``D ∈ c5_approx_D`` (not the log-det trigger with ``D_sync = c·T/(N d log T)``, whose communication the
  Figure 2 module shows to be an artefact of its threshold). Points are means over the runs (column ``c`` holds
  Approx's threshold).
  - ``C5-tradeoff``: for **every** Approx point (q̄, D) there is an Async point with the same q whose
    mean regret is ≤ 1.2 × the Approx point's and whose mean ``C_T`` is **much smaller**: ratio of
    means < 0.5 (``async_kernelucb.MUCH_SMALLER``, fixed before the runs).
    The value reports, per Approx point, the cheapest such Async point's cost ratio.
  OneKernelUCB / NKernelUCB end points (``references``) are drawn, not thresholded.
* **C6 — scaling with N** (Theorem 4.5: B ≤ 2γ(N + 4βN²) at D = 1/N²). Async (q = ``c4_q``)
  over ``c6_N`` at T = ``c6_T``.
  - ``C6-B-slope``: log–log slope of mean B vs N at D = 1/N² is ≤ 2.
  - ``C6-regret-flat``: log–log slope of mean R_T vs N at D = 1/N² is ≤ 0.5 (the regret is
    "nearly flat in N apart from the warm-up term": our operationalisation).
  - ``C6-B-linear`` (only if a fixed numeric D is in ``c6_D``): slope of mean B vs N ≤ 1 at that D.
* **C7 — regret growth** (Theorem 4.5). Async (q = ``c4_q``) over ``c7_T × c7_D`` and NKernelUCB.
  - ``C7-sublinear``: for every D of ``c7_D`` the log–log slope of mean R_T vs T is < 1.
  - ``C7-vs-NKernelUCB``: Async's slope at the smallest D is below NKernelUCB's.

* **C2, C3, C8, C9, C10** (:func:`run_extra`, :func:`extra_claims`, in the same modules as
  C1, C4–C7; T = ``extra_T``,
  ``extra_runs`` runs, D = 1, q = ``c4_q`` unless stated):
  - ``C2-eps-shrinks`` (Lemma 4.1): ε̂ (Lemma 4.1's ε-accuracy measured on the uploaded data; weights q_s/p_s of the RLS draws, recorded
    without changing a draw) on the uploaded data falls along ``c2_q`` (+ Lemma 4.1's q with
    ``c2_q_theory``): every consecutive paired difference < 0.
  - ``C2-eps-accuracy``: share of runs with ε̂ ≤ ε at the largest q ≥ 1 − δ (δ = ``c9_delta``);
    weak by construction at the theoretical q (nothing is compressed).
  - ``C2-variance-fidelity`` (Lemma A.6): for q ≥ 1, every ratio σ̃²_B/σ²_{D_B} at 500 probes in
    ``[(1−ε̂)/(1+ε̂), (1+ε̂)/(1−ε̂)]`` (vacuous when ε̂ ≥ 1; counted).
  - ``C3-merge-in-runs`` (Eq. 5): per-client aggregate = incremental aggregate (≤ 1e-9 relative),
    eigen-basis run = Cholesky run (same arm every step; μ̃, σ̃² within 1e-6 at 200 probes).
  - ``C8-staleness-bound`` (Lemma C.1, read from the paper: the server's data D_k against all
    data up to t_k; a per-client ratio, the active client's stale model, is reported only): q = inf (exact, β = 1), max
    ratio ≤ 1 + N·D in every run; ``C8-rises-with-D``: paired, along ``c8_D``.
  - ``C9-coverage`` (Lemma 4.4): RKHS reward with ‖f‖_k = 1, at Lemma 4.4's α (γ_T replaced by
    ½ log det(I + K/(Dβλ)) on T uniform contexts, fixed before the runs) coverage ≥ 1 − 2δ in
    every run; α = 1 and the smallest covering α reported. Weak by construction (α ≈ 100× the
    needed width).
  - ``C10-participation``: Zipf(``c10_s``) arrivals; every Async exchange involves 1 client,
    every Approx-DisKernelUCB sync all N (protocol definitions; the longest absence reported);
    ``C10-async-regret-unchanged``: Async's R_T ratio Zipf/uniform in [0.8, 1.25] (paired
    equivalence).

Modes: ``quick`` runs all five checks at reduced grids in under a minute on 2 cores; ``full``
(this package's full sizes: T = 3000, 3 runs, q ∈ {0.25, …, 4}, D ∈ {0.3, 1, 3} for C1, references) takes a
few minutes.

Layout (one direction of imports: ``setting`` ← ``maths`` ← ``runs`` ← ``claims`` ← ``plots``; this
``__init__`` re-exports the public names of the run modules, so ``from bandits.experiments.async_theory
import run_extra`` works; the claims and the figures are imported from their own modules,
``bandits.experiments.async_theory.claims`` and ``.plots``, which the run cache's code fingerprint leaves
out and which this ``__init__`` must therefore not import, docs/adding_a_paper.md §4):

* :mod:`.setting`: names, parameters (:func:`theory_params`), the environments
  (:func:`make_theory_env`, :func:`make_rkhs_env`, the Zipf arrivals) and the run configs;
* :mod:`.maths`: pure functions on recorded data (upload order, uploaded-data statistics, ε̂,
  exact variances, staleness ratios, Lemma 4.4's width);
* :mod:`.runs`: the one-run workers (:func:`run_theory_cell`, :func:`run_extra_cell`: the package's one
  run recipe, :func:`bandits.runner.run_regret_cell`, with these checks' environments, a
  ``ChoiceRecorder`` observer and their extra arrays), the tasks of every check and the result tables
  (:func:`run_theory`, :func:`run_extra`);
* :mod:`.claims`: :func:`theory_claims`, :func:`extra_claims` (the thresholds above);
* :mod:`.plots`: the figures.
"""
from __future__ import annotations

from .maths import alpha_lemma44, det_epochs, gamma_proxy, upload_order, uploaded_statistics
from .runs import (ExtraResults, TheoryResults, c1_dictionary, c4_communications, c5_tradeoff, c6_scaling_N,
                   c7_regret_growth, run_extra, run_extra_cell, run_theory, run_theory_cell)
from .setting import (APPROX, ASYNC, CHECKS, EXTRA_CHECKS, INV_N2, NK, ONE, make_rkhs_env, make_theory_env, resolve_D,
                      theory_params)

__all__ = ["CHECKS", "theory_params", "make_theory_env", "run_theory", "run_theory_cell", "c1_dictionary",
           "c4_communications", "c5_tradeoff", "c6_scaling_N", "c7_regret_growth", "uploaded_statistics",
           "upload_order", "det_epochs", "resolve_D", "TheoryResults", "EXTRA_CHECKS", "ExtraResults", "run_extra",
           "run_extra_cell", "make_rkhs_env", "alpha_lemma44", "gamma_proxy",
           "INV_N2", "ASYNC", "APPROX", "ONE", "NK"]
