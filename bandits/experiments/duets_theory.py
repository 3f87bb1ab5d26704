"""Empirical checks of DUETS' theorems (Theorem 4.1, Lemmas 4.2–4.5, App. A Lemmas A.2–A.3; this
package's checks E1–E7, designed for this package: the paper has no such experiments).

Theory-friendly environment ``rkhs2d``: f(x) = Σ_{i≤20} a_i k(x, c_i), ‖f‖_ℋ = B = 5, SE kernel
ℓ = 0.5, M = 1000 uniform candidates in [0,1]², noise R = 0.1, λ = 0.2. DUETS runs with the
paper's inducing rule ``p_j = min(1, p_0 σ²_{j,max})``, p_0 = 10, and
``T_1 = max(2, ⌈√(T/N)⌉)`` (App. A.1's choice without the unknown M̄).

* E1 (Thm 4.1, regret Õ(√(NT γ_NT))): log–log slope of R vs NT along N = 10, T growing, and
  T fixed, N growing; per-agent regret R/N falls with N.
* E2 (Thm 4.1, communication Õ(γ_NT)): slope of C (paper's Eq. 2) and of Σ_j |𝒮_j| vs NT.
* E3 (Lemma 4.3, σ²_max ≲ C γ_n / n): n σ²_max / γ̂_n shows no upward trend in n.
* E4 (Lemmas A.2–A.3): the fraction of inducing sets that are 0.5-accurate
  (σ̃²/3 ≤ σ² ≤ 3σ̃² on the λσ̃² scale) rises with p_0 and is ≥ 1 − δ at p_0 = 72 log(4NT/δ').
* E5 (Lemma 4.5): |𝒮_j| ≤ (3 + log(1/δ')) p_0 γ̂_{NT_j} in ≥ 95 % of epochs.
* E6 (Lemma 4.4): the number of epochs < log log max(N, T) + 4 (natural logs) on a grid.
* E7 (Lemma 4.2): with the theoretical β(δ') the maximiser is never eliminated (≥ 1 − δ of runs).
* E8(b) (superposition, §1 and the proof's use of Salgia et al. 2023a): DUETS with N agents
  against :class:`~bandits.algorithms.duets.CentralizedUniformElimination`, one decision maker
  drawing the N·T_j points of every epoch from one stream; ``e8_runs`` independent runs of each
  (DUETS on runs 0…n−1, the centralised learner on runs n…2n−1, so the two samples share no
  stream and are independent); the two regret distributions compared by the two-sample
  Kolmogorov–Smirnov test (:func:`scipy.stats.ks_2samp`, two-sided, exact where scipy uses it).
  PASS when p > 0.05 (a threshold of this package, fixed before the runs), FAIL otherwise; the difference of mean regrets
  is reported with its 95 % unpaired bootstrap interval. **Weak by construction**: the union of
  N independent uniform samples *is* a uniform sample of size N·T_j, so the two procedures have
  identical distributions in exact arithmetic whatever the bandit does; the check can only find
  an implementation fault (coins not independent, replay not exact, an agent-dependent step),
  and a non-rejection is not a proof of equality (the test's power against small shifts is
  limited by ``e8_runs``). Fixed before the runs: N = 10, T = 100 (quick) / 400 (full), 200 /
  500 runs per arm, β = 1, p₀ = 10.

Every threshold is fixed in this docstring before any run; a FAIL is reported, not hidden. This module
holds the parameters, runs and tables; the claims are in :mod:`bandits.experiments.duets_theory_claims`
(the notebook draws the figures).
"""
from __future__ import annotations

import math

import numpy as np

from ..algorithms.duets import DUETS, CentralizedUniformElimination, beta_theory, delta_prime, epoch_lengths
from ..comm import comm_curve
from ..envs import make_env
from ..estimators import NystromDictionary, collapsed_posterior, nystrom_posterior
from ..kernels import RBF
from ..runner import sweep
from .common import mode_params
from ..validation import ParameterError, check, each, integer, number, rule

__all__ = ["theory_params", "run_theory", "epoch_count_table", "e3_variance_decay",
           "e4_accuracy", "run_e8", "run_e8_cell"]

ENV = {"name": "rkhs2d", "M": 1000, "noise_std": 0.1}
B, R, LAM, ELL, DELTA = 5.0, 0.1, 0.2, 0.5, 0.1

_FULL = dict(T_grid=[25, 100, 400, 1600, 6400, 25600], N_fixed=10, N_grid=[1, 4, 16, 64, 256],
             T_fixed=400, n_runs=5, p0=10.0, beta=1.0, theory_beta=True,
             e3_n=[50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200], e3_draws=3,
             e4_n=[100, 1000, 10000], e4_trials=50, env_seed=0, e8_N=10, e8_T=400, e8_runs=500)
_QUICK = dict(_FULL, T_grid=[25, 100, 400, 1600], N_grid=[1, 4, 16, 64], n_runs=3,
              e3_n=[50, 100, 200, 400, 800, 1600, 3200, 6400], e4_n=[100, 1000], e4_trials=20,
              e8_T=100, e8_runs=200)


def theory_params(mode: str = "quick", **overrides) -> dict:
    p = mode_params(mode, _FULL, _QUICK, overrides, "theory-check")
    for k in ("N_fixed", "T_fixed", "n_runs", "e3_draws", "e4_trials", "e8_N", "e8_T", "e8_runs"):
        check(k, p[k], integer(ge=1))
    for k in ("T_grid", "N_grid", "e3_n", "e4_n"):
        check(k, p[k], each(rule(lambda v: not isinstance(v, bool) and isinstance(v, int) and v >= 1,
                                 "a positive integer")))
    check("p0", p["p0"], number(gt=0))
    check("beta", p["beta"], number(gt=0))
    return p


def _T1(N, T):
    return max(2, math.ceil(math.sqrt(T / N)))


def _config(N, T, beta, p0):
    return {"loop": "regret", "env": ENV, "env_seed": 0, "algorithm": "DUETS",
            "params": {"kernel": {"name": "rbf", "lengthscale": ELL}, "lam": LAM, "beta": float(beta),
                       "T1": _T1(N, T), "p0": float(p0), "inducing_rule": "variance"},
            "N": int(N), "T": int(T)}


def run_theory(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None,
               progress: bool = True):
    """Run E1/E2/E5/E7 bandit sweeps; returns (runs, epochs) DataFrames."""
    import pandas as pd

    M = ENV["M"]
    cells = []  # (series, N, T, beta_kind, beta)
    for T in p["T_grid"]:
        cells.append(("T", p["N_fixed"], T, "beta=1", p["beta"]))
        if p["theory_beta"]:
            cells.append(("T", p["N_fixed"], T, "beta(delta')",
                          beta_theory(B, R, LAM, delta_prime(DELTA, p["N_fixed"], T, M))))
    for N in p["N_grid"]:
        cells.append(("N", N, p["T_fixed"], "beta=1", p["beta"]))
    tasks, labels = [], []
    for series, N, T, kind, beta in cells:
        for rep in range(p["n_runs"]):
            tasks.append((_config(N, T, beta, p["p0"]), rep))
            labels.append({"series": series, "N": N, "T": T, "NT": N * T, "beta_kind": kind,
                           "beta": beta, "rep": rep})
    # the N-KernelUCB reference: one agent (its N-agent regret is exactly N times this)
    ref = {"loop": "regret", "env": ENV, "env_seed": 0, "algorithm": "N-KernelUCB",
           "params": {"kernel": {"name": "rbf", "lengthscale": ELL}, "lam": LAM, "beta": p["beta"]},
           "N": 1, "T": p["T_fixed"]}
    for rep in range(p["n_runs"]):
        tasks.append((ref, rep))
        labels.append({"series": "N-KernelUCB, 1 agent", "N": 1, "T": p["T_fixed"], "NT": p["T_fixed"],
                       "beta_kind": "beta=1", "beta": p["beta"], "rep": rep})
    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir,
                       progress=progress, desc="DUETS theory")
    env = make_env(ENV, 0)
    xstar = env.argmax
    runs, epochs = [], []
    for lab, res in zip(labels, results):
        a, info = res["arrays"], res["meta"]["info"]
        C = float(comm_curve(a["comm_up"], a["comm_down"], lab["N"], "paper")[-1])
        row = {**lab, "R_T": float(a["regret"].sum()), "C_paper": C, "wall_time": res["meta"].get("wall_time"),
               "cpu_time": res["meta"].get("cpu_time")}
        if "epochs" in info:
            sets = info["active_sets"]
            row["sum_S"] = sum(e.get("s_unique", 0) for e in info["epochs"])
            row["n_epochs"] = len(info["epochs"])
            row["xstar_survived"] = all(xstar in set(s) for s in sets)
            for k, e in enumerate(info["epochs"]):
                if e.get("communicated"):
                    dprime = delta_prime(DELTA, lab["N"], lab["T"], M)
                    epochs.append({**lab, **e, "NT_j": lab["N"] * e["T_j"],
                                   "S_bound": (3 + math.log(1 / dprime)) * p["p0"] * e["gamma_hat"]})
        runs.append(row)
    return pd.DataFrame(runs), pd.DataFrame(epochs)


E8_METHODS = {"DUETS": DUETS, "CentralizedUniformElimination": CentralizedUniformElimination}


def run_e8_cell(config: dict, seed: int, rep: int) -> dict:
    """One E8 run: the one run recipe (:func:`bandits.runner.run_regret_cell`, same seeds, same loop as
    every other run) for DUETS or its centralised counterpart (which is not in the algorithm registry:
    it exists only for this check, so it enters as ``policy_class``); the meta adds the number of
    epochs and the final active-set size."""
    from ..runner import run_regret_cell

    def epochs(ctx):
        return {}, {"n_epochs": len(ctx.policy.epochs), "final_active": int(len(ctx.policy.active))}

    return run_regret_cell(config, seed, rep, policy_class=E8_METHODS[config["algorithm"]], collect=epochs)


def run_e8(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None, progress: bool = True):
    """E8(b): ``e8_runs`` runs of DUETS (runs 0…n−1) and of the centralised uniform-elimination
    learner (runs n…2n−1) at N = ``e8_N``, T = ``e8_T``; one row per run (method, rep, R_T,
    final_active)."""
    import pandas as pd

    N, T, n = p["e8_N"], p["e8_T"], p["e8_runs"]
    tasks, labels = [], []
    for k, name in enumerate(E8_METHODS):
        cfg = _config(N, T, p["beta"], p["p0"])
        cfg = {**cfg, "loop": "duets_e8", "algorithm": name}
        for rep in range(k * n, (k + 1) * n):
            tasks.append((cfg, rep))
            labels.append({"method": name, "rep": rep, "N": N, "T": T})
    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                       desc="DUETS E8", fn=run_e8_cell)
    return pd.DataFrame([{**lab, "R_T": float(r["arrays"]["regret"].sum()), "final_active": r["meta"]["final_active"],
                          "wall_time": r["meta"].get("wall_time"), "cpu_time": r["meta"].get("cpu_time")}
                         for lab, r in zip(labels, results)])


def epoch_count_table():
    """E6: epochs of the floor recursion vs ``log log max(N, T) + 4`` (Lemma 4.4) on this package's grid."""
    import pandas as pd

    rows = []
    for T in [10**k for k in range(1, 8)]:
        for N in (1, 10, 100, 1000):
            for rule, T1 in (("T1=2", 2), ("T1=ceil(sqrt(T/N))", max(1, math.ceil(math.sqrt(T / N))))):
                J = len(epoch_lengths(T, T1))
                bound = math.log(math.log(max(N, T))) + 4
                rows.append({"T": T, "N": N, "T1_rule": rule, "T1": T1, "epochs": J, "bound": bound,
                             "ok": J < bound})
    return pd.DataFrame(rows)


def e3_variance_decay(p: dict, seed: int = 0):
    """E3: σ²_max and γ̂_n of n uniform draws from the candidate set."""
    import pandas as pd

    env = make_env(ENV, 0)
    k = RBF(ELL)
    rows = []
    for n in p["e3_n"]:
        for draw in range(p["e3_draws"]):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3, n, draw)))
            idx = rng.integers(0, env.X.shape[0], size=n)
            u, c = np.unique(idx, return_counts=True)
            _, var, gain = collapsed_posterior(k, env.X[u], c, LAM, env.X, with_gain=True)
            rows.append({"n": n, "draw": draw, "sigma2_max": float(var.max()), "gamma_hat": gain,
                         "ratio": n * float(var.max()) / gain})
    return pd.DataFrame(rows)


def e4_accuracy(p: dict, seed: int = 0, N: int = 10, T: int = 1000):
    """E4: fraction of Bernoulli inducing sets that are 0.5-accurate, vs p_0."""
    import pandas as pd

    env = make_env(ENV, 0)
    k = RBF(ELL)
    M = env.X.shape[0]
    p0_theory = 72 * math.log(4 * N * T / delta_prime(DELTA, N, T, M))
    rows = []
    kd = k.diag(env.X)
    for n in p["e4_n"]:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4, n)))
        idx = rng.integers(0, M, size=n)
        u, c = np.unique(idx, return_counts=True)
        _, var = collapsed_posterior(k, env.X[u], c, LAM, env.X)
        s2max = float(var.max())
        for p0 in (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, p0_theory):
            prob = min(1.0, p0 * s2max)
            ok = []
            sizes = []
            for trial in range(p["e4_trials"]):
                S = np.unique(idx[rng.random(n) < prob])
                if len(S) == 0:
                    S = idx[:1]
                dic = NystromDictionary(k, env.X.shape[1])
                dic.add(env.X[S])
                Zu = dic.features(env.X[u])
                G = Zu.T @ (c[:, None] * Zu)
                _, s2n = nystrom_posterior(dic.features(env.X), kd, G, None, LAM)
                r = LAM * s2n / np.maximum(var, 1e-300)
                ok.append(bool(np.max(np.abs(np.log(r))) <= math.log(3.0)))
                sizes.append(len(S))
            rows.append({"n": n, "p0": p0, "theory_p0": p0 == p0_theory, "p": prob,
                         "frac_accurate": float(np.mean(ok)), "mean_S": float(np.mean(sizes))})
    return pd.DataFrame(rows)
