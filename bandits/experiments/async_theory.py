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
  trigger (issue 25: the variance sum ``Σ_{s∈ΔD_n} σ̃²_last(x_s) > D``, q̄ = q) over
  ``D ∈ c5_approx_D`` (before issue 25: the log-det trigger with ``D_sync = c·T/(N d log T)``, which
  the Figure 2 module calls an artefact). Points are means over the runs (column ``c`` holds
  Approx's threshold).
  - ``C5-tradeoff``: for **every** Approx point (q̄, D) there is an Async point with the same q whose
    mean regret is ≤ 1.2 × the Approx point's and whose mean ``C_T`` is **much smaller**: ratio of
    means < 0.5 (``async_kernelucb.MUCH_SMALLER``, fixed before the issue-25 runs; before: < 1).
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

* **C2, C3, C8, C9, C10** (issue 13; :func:`run_extra`, :func:`extra_claims`, implemented in
  :mod:`bandits.experiments.async_theory_extra` and re-exported here; T = ``extra_T``,
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

Length: checks C1, C4–C7 stay in this one file (≈ 980 lines, a third of it this docstring) because
their runs, claims and figures share the tasks, the result tables and the thresholds stated above;
C2, C3, C8–C10 are in :mod:`~bandits.experiments.async_theory_extra`.
"""
from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..algorithms import get_algorithm
from ..algorithms.async_kernel_ucb import AsyncKernelUCB, communication_bound, dict_size_curve
from ..comm import CommLedger
from ..envs.base import ContextualEnv
from ..envs.functions import f1, f2, sample_ball
from ..runner import run_key, run_seeds, sweep
from ..sim import run_regret
from .async_kernelucb import MUCH_SMALLER
from .common import Claim, ParameterError, check_choice, check_int, check_number, check_subset, fmt, \
    loglog_slope

__all__ = ["CHECKS", "theory_params", "make_theory_env", "run_theory", "c1_dictionary", "c4_communications",
           "c5_tradeoff", "c6_scaling_N", "c7_regret_growth", "theory_claims", "plot_c1", "plot_c4", "plot_c5",
           "plot_scaling", "uploaded_statistics", "det_epochs", "resolve_D", "TheoryResults",
           "EXTRA_CHECKS", "ExtraResults", "run_extra", "run_extra_cell", "extra_claims", "make_rkhs_env", "alpha_lemma44",
           "gamma_proxy"]

CHECKS = ("C1", "C4", "C5", "C6", "C7")
EXTRA_CHECKS = ("C2", "C3", "C8", "C9", "C10")  # run by async_theory_extra
INV_N2 = "1/N^2"  # the theory's threshold D = 1/N², resolved per N
ASYNC, APPROX, ONE, NK = "Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB", "NKernelUCB"
_ALG = {ASYNC: "AsyncKernelUCB", APPROX: "ApproxDisKernelUCB", ONE: "OneKernelUCB", NK: "N-KernelUCB"}

_FULL = dict(
    N=20, T=3000, n_runs=3, d=5, function="f1", K=20, noise_std=0.1, gamma_k=1.0, lam=1.0, alpha=1.0,
    eps=0.5, checks=list(CHECKS),
    c1_q=[0.25, 0.5, 1.0, 2.0, 4.0], c1_D=[0.3, 1.0, 3.0],
    c4_q=1.0, c4_D=[INV_N2, 0.1, 0.3, 1.0, 3.0, 10.0],
    c5_q=[0.25, 1.0], c5_D=[INV_N2, 0.1, 0.3, 1.0, 3.0, 10.0], c5_approx_D=[0.1, 0.3, 1.0, 3.0, 10.0],
    references=True,
    c6_N=[5, 10, 20, 40], c6_T=2000, c6_D=[INV_N2, 1.0],
    c7_T=[500, 1000, 2000, 4000], c7_D=[INV_N2, 1.0],
    extra_checks=["C2", "C3", "C8", "C9", "C10"], extra_T=2000, extra_runs=3,
    c2_q=[0.25, 1.0, 4.0], c2_q_theory=True, c3_runs=2, c8_D=[0.1, 1.0, 3.0],
    c9_R=0.1, c9_centres=30, c9_delta=0.1, c10_s=1.2, c10_runs=10, c10_approx_runs=3,
)
_QUICK = dict(
    _FULL, T=2000, n_runs=2, c1_q=[0.25, 1.0, 4.0], c1_D=[1.0],
    c5_q=[1.0], c5_approx_D=[0.3, 1.0, 10.0], references=False,
    c6_N=[5, 10, 20], c6_T=1000, c6_D=[INV_N2],
    c7_T=[250, 500, 1000, 2000], c7_D=[INV_N2],
    extra_T=1000, extra_runs=3, c3_runs=1, c8_D=[1.0, 3.0], c10_runs=5, c10_approx_runs=1,
)


# ------------------------------------------------------------------------------ parameters
def _check_D_list(name, values):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or not list(values):
        raise ParameterError(f"parameter {name!r} must be a non-empty list of numbers > 0 or {INV_N2!r}, "
                             f"got {values!r}")
    for v in values:
        if v == INV_N2:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ParameterError(f"parameter {name!r} must be a non-empty list of numbers > 0 or {INV_N2!r}, "
                                 f"got {values!r}")


def _check_num_list(name, values, integer=False, minimum=None):
    ok = not isinstance(values, (str, bytes)) and hasattr(values, "__iter__") and len(list(values)) > 0
    if ok:
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer) if integer else (int, float)):
                ok = False
            elif not math.isfinite(v) or v <= 0 or (minimum is not None and v < minimum):
                ok = False
    if not ok:
        kind = "integers" if integer else "numbers"
        lo = f" >= {minimum}" if minimum is not None else " > 0"
        raise ParameterError(f"parameter {name!r} must be a non-empty list of {kind}{lo}, got {values!r}")


def theory_params(mode: str = "quick", **overrides) -> dict:
    """The parameters of ``mode`` (``"quick"`` or ``"full"``) with ``overrides`` applied and validated.

    Raises :class:`ParameterError` naming the offending parameter.
    """
    check_choice("mode", mode, ("quick", "full"))
    p = {k: (list(v) if isinstance(v, list) else v) for k, v in (_FULL if mode == "full" else _QUICK).items()}
    unknown = set(overrides) - set(p)
    if unknown:
        raise ParameterError(f"unknown Async-KernelUCB theory parameters {sorted(unknown)}; allowed: {sorted(p)}")
    p.update({k: v for k, v in overrides.items() if v is not None})
    for k in ("N", "T", "n_runs", "d", "K", "c6_T"):
        check_int(k, p[k], 1)
    check_int("N", p["N"], 1)
    for k in ("gamma_k", "lam", "c4_q"):
        check_number(k, p[k])
    check_number("alpha", p["alpha"], positive=False)
    if p["alpha"] < 0:
        raise ParameterError(f"parameter 'alpha' must be >= 0, got {p['alpha']}")
    check_number("noise_std", p["noise_std"], positive=False)
    if p["noise_std"] < 0:
        raise ParameterError(f"parameter 'noise_std' must be >= 0, got {p['noise_std']}")
    check_number("eps", p["eps"])
    if not p["eps"] < 1:
        raise ParameterError(f"parameter 'eps' must be in (0, 1), got {p['eps']}")
    check_choice("function", p["function"], ("f1", "f2"))
    check_subset("checks", p["checks"], CHECKS)
    if not isinstance(p["references"], bool):
        raise ParameterError(f"parameter 'references' must be True or False, got {p['references']!r}")
    for k in ("c1_q", "c5_q", "c5_approx_D"):
        _check_num_list(k, p[k])
    for k in ("c1_D", "c4_D", "c5_D", "c6_D", "c7_D"):
        _check_D_list(k, p[k])
    _check_num_list("c6_N", p["c6_N"], integer=True, minimum=1)
    check_subset("extra_checks", p["extra_checks"], EXTRA_CHECKS)
    for k in ("extra_T", "extra_runs", "c3_runs", "c9_centres", "c10_runs", "c10_approx_runs"):
        check_int(k, p[k], 1)
    _check_num_list("c2_q", p["c2_q"])
    _check_D_list("c8_D", p["c8_D"])
    for k in ("c9_R", "c9_delta", "c10_s"):
        check_number(k, p[k])
    if not p["c9_delta"] < 1:
        raise ParameterError(f"parameter 'c9_delta' must be in (0, 1), got {p['c9_delta']}")
    if not isinstance(p["c2_q_theory"], bool):
        raise ParameterError(f"parameter 'c2_q_theory' must be True or False, got {p['c2_q_theory']!r}")
    _check_num_list("c7_T", p["c7_T"], integer=True, minimum=2)
    if p["T"] < 2:
        raise ParameterError(f"parameter 'T' must be >= 2 (D_sync uses log T), got {p['T']}")
    return p


def _dlabel(D) -> str:
    return INV_N2 if D == INV_N2 else f"{float(D):g}"


def resolve_D(D, N: int) -> float:
    """A threshold value: ``"1/N^2"`` → ``1/N²``; a number is returned as a float."""
    return 1.0 / N**2 if D == INV_N2 else float(D)


def _beta(p):
    return (1.0 + p["eps"]) / (1.0 - p["eps"])


# ------------------------------------------------------------------------------ environment
def make_theory_env(spec: dict, env_seed: int) -> ContextualEnv:
    """The S5 environment: ``spec = {"name": "f1"|"f2", "d", "K", "noise_std", "schedule"}``.

    Contexts and θ* uniform in the unit ball of R^d (as in §5.1), θ* drawn from
    ``SeedSequence([env_seed, crc32(f"{name}-d{d}")])`` (so d = 5 and the registered d = 20
    functions get independent draws).
    """
    name, d = spec["name"], int(spec["d"])
    fun = {"f1": f1, "f2": f2}[name]
    ss = np.random.SeedSequence([int(env_seed), zlib.crc32(f"{name}-d{d}".encode())])
    theta = sample_ball(np.random.default_rng(ss), 1, d)[0]
    theta.setflags(write=False)
    return ContextualEnv(sampler=partial(_ball, d=d), f=partial(fun, theta=theta), n_arms=int(spec["K"]), dim=d,
                         noise_std=float(spec["noise_std"]), name=f"{name}-d{d}",
                         schedule=spec.get("schedule", "uniform"), info={"theta": theta})


def _ball(rng, n, d):
    return sample_ball(rng, n, d)


class _RecordingAsync(AsyncKernelUCB):
    """Async-KernelUCB that also records the chosen context and client of every step (nothing else
    changes; the uploaded data are rebuilt from ``info()``'s exchange log)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rec_x: list[np.ndarray] = []
        self.rec_client: list[int] = []
        self.rec_t: list[int] = []

    def update(self, t, agents, arms, choices, rewards):
        for j, i in enumerate(agents):
            self.rec_x.append(np.asarray(arms.for_agent(j)[int(choices[j])], dtype=float))
            self.rec_client.append(int(i))
            self.rec_t.append(int(t))
        super().update(t, agents, arms, choices, rewards)


def upload_order(clients: np.ndarray, steps: np.ndarray, comm_steps, comm_clients) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the recorded points in the order the server received them, and the number
    received after each exchange (``n_k``, shape (B,)). Exchange k by client c at step t_k uploads
    c's points with steps in (t_{c's previous exchange}, t_k]."""
    clients, steps = np.asarray(clients), np.asarray(steps)
    by_client: dict[int, np.ndarray] = {}
    for c in np.unique(clients):
        by_client[int(c)] = np.flatnonzero(clients == c)  # time order
    ptr = {c: 0 for c in by_client}
    order, n_k = [], []
    for t_k, c in zip(comm_steps, comm_clients):
        idx = by_client[int(c)]
        j = int(np.searchsorted(steps[idx], t_k, side="right"))
        order.extend(idx[ptr[int(c)]:j].tolist())
        ptr[int(c)] = j
        n_k.append(len(order))
    return np.asarray(order, dtype=np.int64), np.asarray(n_k, dtype=np.int64)


def uploaded_statistics(kernel, X: np.ndarray, n_k: np.ndarray, lam: float, with_deff: bool = True) -> dict:
    """On the uploaded data ``X`` (rows in upload order): ``logdet_k = log det(I + K_{D_k}/λ)``
    after each exchange, ``gamma_hat = ½ log det(I + K_{D_B}/λ)`` and ``d_eff = Tr K(K+λI)⁻¹``.

    One Cholesky ``K + λI = LLᵀ``: ``L_ss² = λ(1 + σ²_{s−1}(x_s))``, so the log-det is a
    cumulative sum of ``log(L_ss²/λ)``; ``d_eff = n − λ‖L⁻¹‖²_F``.
    """
    from scipy.linalg import cholesky, solve_triangular

    n = X.shape[0]
    if n == 0:
        return {"logdet_k": np.zeros(len(n_k)), "gamma_hat": 0.0, "d_eff": 0.0, "n_uploaded": 0}
    A = kernel(X)
    A[np.diag_indices(n)] += lam
    L = cholesky(A, lower=True, overwrite_a=True, check_finite=False)
    inc = 2.0 * np.log(np.diag(L)) - math.log(lam)
    cum = np.concatenate([[0.0], np.cumsum(inc)])
    out = {"logdet_k": cum[np.asarray(n_k, dtype=np.int64)], "gamma_hat": 0.5 * float(cum[-1]), "n_uploaded": int(n)}
    if with_deff:
        Linv = solve_triangular(L, np.eye(n), lower=True, check_finite=False)
        out["d_eff"] = float(n - lam * np.sum(Linv * Linv))
    return out


def det_epochs(logdet_k: np.ndarray) -> np.ndarray:
    """Epoch index of every exchange (Lemma D.1): exchange k is in epoch
    ``⌊log₂ det(I + K_{D_{k−1}}/λ)⌋`` (the data the server had before it)."""
    before = np.concatenate([[0.0], np.asarray(logdet_k, dtype=float)[:-1]])
    return np.floor(before / math.log(2.0) + 1e-12).astype(np.int64)


# ------------------------------------------------------------------------------ one run
def _config(p: dict, method: str, N: int, T: int, rep: int, D=None, q=None, c=None) -> dict:
    kernel = {"name": "rbf", "gamma": float(p["gamma_k"])}
    env = {"name": p["function"], "d": int(p["d"]), "K": int(p["K"]), "noise_std": float(p["noise_std"]),
           "schedule": "uniform"}
    if method == ASYNC:
        params = {"kernel": kernel, "lam": float(p["lam"]), "alpha": float(p["alpha"]), "D": float(D), "q": float(q)}
    elif method == APPROX and c is None:  # Figure 2's trigger: the variance sum over the new data > D
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "D": float(D),
                  "qbar": float(q), "trigger": "var_sum"}
    elif method == APPROX:  # a DisLinUCB-style log-det trigger (not in the paper; see async_kernelucb), D_sync = c·T/(N d log T)
        Ds = float(c) * T / (N * p["d"] * math.log(T))
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "D": Ds, "qbar": float(q),
                  "trigger": "dislinucb_logdet"}
    else:
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "variance_scale": "ridge"}
    return {"loop": "async_theory", "env": env, "env_seed": int(rep), "algorithm": _ALG[method], "params": params,
            "N": int(N), "T": int(T)}


def run_theory_cell(config: dict, seed: int, rep: int) -> dict:
    """One run (pure function of its arguments), like :func:`bandits.runner.run_cell`, on the S5
    environment; Async-KernelUCB runs also return the uploaded-data statistics."""
    N, T = int(config["N"]), int(config["T"])
    env = make_theory_env(config["env"], config.get("env_seed", 0))
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    alg = config["algorithm"]
    cls = _RecordingAsync if alg == "AsyncKernelUCB" else get_algorithm(alg)
    policy = cls(N, T, env.dim, alg_ss, ledger, **config.get("params", {}))
    trace = run_regret(policy, env, T, N, rng_env, rng_noise)
    arrays = {"regret": trace.regret, "comm_up": trace.comm_up, "comm_down": trace.comm_down}
    meta = {"info": trace.info, "wall_time": trace.wall_time, "comm_rounds": ledger.rounds(),
            "comm_by_kind": ledger.by_kind()}
    if alg == "AsyncKernelUCB":
        t0 = time.perf_counter()
        info = trace.info
        order, n_k = upload_order(policy.rec_client, policy.rec_t, info["comm_steps"], info["comm_clients"])
        X = np.asarray(policy.rec_x)[order] if len(order) else np.zeros((0, env.dim))
        st = uploaded_statistics(policy.kernel, X, n_k, policy.lam, with_deff=True)
        arrays["logdet_k"] = np.asarray(st.pop("logdet_k"), dtype=float)
        meta["uploaded"] = dict(st, wall_time=time.perf_counter() - t0)
    import json

    from ..runner import _canonical

    return {"arrays": arrays, "meta": json.loads(_canonical(meta))}


def _sweep(tasks, seed, n_jobs=1, backend="loky", cache_dir=None, progress=True, desc="Async theory"):
    """:func:`bandits.runner.sweep` with :func:`run_theory_cell`; identical tasks run once."""
    keys = [run_key(c, seed, r, run_theory_cell) for c, r in tasks]
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    uniq = list(first)
    results, _ = sweep([tasks[first[k]] for k in uniq], seed, n_jobs=n_jobs, backend=backend,
                       cache_dir=cache_dir, progress=progress, desc=desc, fn=run_theory_cell)
    by_key = dict(zip(uniq, results))
    return [by_key[k] for k in keys]


# ------------------------------------------------------------------------------ tasks per check
def _reps(p):
    return range(p["n_runs"])


def _tasks(p: dict, checks) -> list[tuple[dict, dict]]:
    """``[(label, config)]`` for the requested checks (the rep is ``config["env_seed"]``)."""
    N, T = p["N"], p["T"]
    out = []
    for check in checks:
        if check == "C1":
            for q in p["c1_q"]:
                for D in p["c1_D"]:
                    for rep in _reps(p):
                        out.append(({"check": "C1", "method": ASYNC, "q": float(q), "D_label": _dlabel(D),
                                     "D": resolve_D(D, N), "N": N, "T": T, "rep": rep},
                                    _config(p, ASYNC, N, T, rep, D=resolve_D(D, N), q=q)))
        elif check == "C4":
            for D in p["c4_D"]:
                for rep in _reps(p):
                    out.append(({"check": "C4", "method": ASYNC, "q": float(p["c4_q"]), "D_label": _dlabel(D),
                                 "D": resolve_D(D, N), "N": N, "T": T, "rep": rep},
                                _config(p, ASYNC, N, T, rep, D=resolve_D(D, N), q=p["c4_q"])))
        elif check == "C5":
            for q in p["c5_q"]:
                for D in p["c5_D"]:
                    for rep in _reps(p):
                        out.append(({"check": "C5", "method": ASYNC, "q": float(q), "D_label": _dlabel(D),
                                     "D": resolve_D(D, N), "c": np.nan, "N": N, "T": T, "rep": rep},
                                    _config(p, ASYNC, N, T, rep, D=resolve_D(D, N), q=q)))
                for c in p["c5_approx_D"]:  # the variance-sum trigger's threshold, as in Figure 2
                    for rep in _reps(p):
                        cfg = _config(p, APPROX, N, T, rep, q=q, D=float(c))
                        out.append(({"check": "C5", "method": APPROX, "q": float(q), "D_label": f"{c:g}",
                                     "D": float(c), "c": float(c), "N": N, "T": T, "rep": rep}, cfg))
            if p["references"]:
                for m in (ONE, NK):
                    for rep in _reps(p):
                        out.append(({"check": "C5", "method": m, "q": np.nan, "D_label": "", "D": np.nan,
                                     "c": np.nan, "N": N, "T": T, "rep": rep}, _config(p, m, N, T, rep)))
        elif check == "C6":
            for n in p["c6_N"]:
                for D in p["c6_D"]:
                    for rep in _reps(p):
                        out.append(({"check": "C6", "method": ASYNC, "q": float(p["c4_q"]), "D_label": _dlabel(D),
                                     "D": resolve_D(D, n), "N": int(n), "T": p["c6_T"], "rep": rep},
                                    _config(p, ASYNC, int(n), p["c6_T"], rep, D=resolve_D(D, n), q=p["c4_q"])))
        elif check == "C7":
            for t in p["c7_T"]:
                for D in p["c7_D"]:
                    for rep in _reps(p):
                        out.append(({"check": "C7", "method": ASYNC, "q": float(p["c4_q"]), "D_label": _dlabel(D),
                                     "D": resolve_D(D, N), "N": N, "T": int(t), "rep": rep},
                                    _config(p, ASYNC, N, int(t), rep, D=resolve_D(D, N), q=p["c4_q"])))
                for rep in _reps(p):
                    out.append(({"check": "C7", "method": NK, "q": np.nan, "D_label": "", "D": np.nan, "N": N,
                                 "T": int(t), "rep": rep}, _config(p, NK, N, int(t), rep)))
        else:
            raise ParameterError(f"parameter 'checks' has unknown value {check!r}; allowed: {list(CHECKS)}")
    return out


def _row(p: dict, lab: dict, res: dict) -> dict:
    a, meta = res["arrays"], res["meta"]
    info = meta["info"]
    C = float(np.sum(a["comm_up"] + a["comm_down"]))
    row = {**lab, "R_T": float(np.sum(a["regret"])), "C_T": C, "wall_time": float(meta["wall_time"])}
    if lab["method"] == ASYNC:
        up = meta["uploaded"]
        beta = _beta(p)
        N, D, q, d = lab["N"], lab["D"], lab["q"], p["d"]
        m = int(info["dict_size"])
        g = float(up["gamma_hat"])
        B = int(info["n_comms"])
        ep = det_epochs(a["logdet_k"]) if B else np.zeros(0, dtype=np.int64)
        per_epoch = np.bincount(ep - ep.min()) if B else np.zeros(0)
        per_epoch = per_epoch[per_epoch > 0]
        row.update({
            "B": B, "dict_size": m, "gamma_hat": g, "d_eff": float(up["d_eff"]), "n_uploaded": int(up["n_uploaded"]),
            "expected_size": float(info["rls_prob_sum"]), "n_sampled": int(info["n_sampled"]),
            "n_skipped": int(info["n_skipped"]),
            "size_bound": 12.0 * beta * (1.0 + beta * D) * q * g,
            "B_bound": 2.0 * g * (N + 4.0 * beta / D),
            "epoch_bound": N + 4.0 * beta / D,
            "n_epochs": int(len(per_epoch)), "max_per_epoch": int(per_epoch.max()) if len(per_epoch) else 0,
            "C_bound": communication_bound(g, N, D, m, d, p["eps"]),
        })
        row["S_over_deff"] = m / row["d_eff"] if row["d_eff"] > 0 else np.nan
    elif lab["method"] == APPROX:
        row.update({"B": int(info.get("n_syncs", meta["comm_rounds"])),
                    "dict_size": int(info["dict_sizes"][-1]) if info.get("dict_sizes") else 0})
    else:
        row.update({"B": int(meta["comm_rounds"]), "dict_size": np.nan})
    return row


@dataclass
class TheoryResults:
    """The tidy tables of :func:`run_theory` (one row per run unless stated)."""

    params: dict
    c1: object = None          # C1: q, D, rep, dict_size, size_bound, gamma_hat, d_eff, expected_size, ...
    c1_curves: object = None   # C1: |S| after every step, thinned (q, D, rep, t, dict_size)
    c4: object = None          # C4: D, rep, B, B_bound, max_per_epoch, epoch_bound, C_T, C_bound, ...
    c4_epochs: object = None   # C4: exchanges per det-doubling epoch (D, rep, epoch, count, bound)
    c5: object = None          # C5: method, q, D / c, rep, R_T, C_T, B, dict_size
    c6: object = None          # C6: N, D, rep, B, C_T, R_T
    c7: object = None          # C7: method, T, D, rep, R_T, B, C_T

    def frames(self) -> dict:
        return {k: getattr(self, k) for k in ("c1", "c1_curves", "c4", "c4_epochs", "c5", "c6", "c7")
                if getattr(self, k) is not None}


def run_theory(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None,
               progress: bool = True, checks=None) -> TheoryResults:
    """Run the requested checks (default ``p["checks"]``) in one sweep; identical runs are shared
    between checks (e.g. C4's and C5's Async points)."""
    import pandas as pd

    checks = list(p["checks"] if checks is None else checks)
    check_subset("checks", checks, CHECKS)
    labelled = _tasks(p, checks)
    results = _sweep([(cfg, lab["rep"]) for lab, cfg in labelled], seed, n_jobs=n_jobs, backend=backend,
                     cache_dir=cache_dir, progress=progress, desc="Async-KernelUCB theory")
    rows = {c: [] for c in CHECKS}
    curves, epochs = [], []
    for (lab, cfg), res in zip(labelled, results):
        row = _row(p, lab, res)
        rows[lab["check"]].append(row)
        if lab["check"] == "C1":
            T = lab["T"]
            S = dict_size_curve(res["meta"]["info"], T)
            idx = np.unique(np.r_[np.arange(max(1, T // 100) - 1, T, max(1, T // 100)), T - 1])
            curves.append(pd.DataFrame({"q": lab["q"], "D": lab["D"], "D_label": lab["D_label"], "rep": lab["rep"],
                                        "t": idx + 1, "dict_size": S[idx]}))
        if lab["check"] == "C4" and row["B"]:
            ep = det_epochs(res["arrays"]["logdet_k"])
            u, cnt = np.unique(ep, return_counts=True)
            epochs.append(pd.DataFrame({"D": lab["D"], "D_label": lab["D_label"], "rep": lab["rep"], "epoch": u,
                                        "count": cnt, "bound": row["epoch_bound"]}))
    out = TheoryResults(p)
    drop = ["check"]
    for c in checks:
        df = pd.DataFrame(rows[c]).drop(columns=drop)
        setattr(out, c.lower(), df)
    if "C1" in checks:
        out.c1_curves = pd.concat(curves, ignore_index=True)
    if "C4" in checks:
        out.c4_epochs = pd.concat(epochs, ignore_index=True) if epochs else pd.DataFrame(
            columns=["D", "D_label", "rep", "epoch", "count", "bound"])
    return out


def c1_dictionary(p: dict, **kw):
    """C1 (Lemma 4.1): one row per Async run over ``c1_q × c1_D``. ``kw``: see :func:`run_theory`."""
    return run_theory(p, checks=["C1"], **kw).c1


def c4_communications(p: dict, **kw):
    """C4 (Lemma D.1): one row per Async run over ``c4_D``."""
    return run_theory(p, checks=["C4"], **kw).c4


def c5_tradeoff(p: dict, **kw):
    """C5 (Theorem 4.5): one row per run of Async over ``c5_q × c5_D`` and Approx-DisKernelUCB over
    ``c5_q × c5_approx_D`` (and OneKernelUCB / NKernelUCB with ``references``)."""
    return run_theory(p, checks=["C5"], **kw).c5


def c6_scaling_N(p: dict, **kw):
    """C6: one row per Async run over ``c6_N × c6_D`` at T = ``c6_T``."""
    return run_theory(p, checks=["C6"], **kw).c6


def c7_regret_growth(p: dict, **kw):
    """C7: one row per run of Async over ``c7_T × c7_D`` and of NKernelUCB over ``c7_T``."""
    return run_theory(p, checks=["C7"], **kw).c7


# ------------------------------------------------------------------------------ claims
def _pareto(df):
    """Rows of ``df`` (with C_T, R_T) not dominated (lower C and lower-or-equal R), sorted by C."""
    df = df.sort_values(["C_T", "R_T"])
    keep, best = [], np.inf
    for i, r in df.iterrows():
        if r.R_T < best:
            keep.append(i)
            best = r.R_T
    return df.loc[keep]


def c5_points(c5):
    """Mean (R_T, C_T, B, dict_size) per (method, q, D) over the runs."""
    key = ["method", "q", "D", "D_label"] + (["c"] if "c" in c5 else [])
    return c5.groupby(key, dropna=False)[["R_T", "C_T", "B", "dict_size"]].mean().reset_index()


def c5_matches(c5, tol: float = 1.2):
    """For every Approx point: the cheapest Async point (same q) with mean regret ≤ ``tol`` × its
    regret; ``ratio`` = that point's C_T / Approx's C_T (NaN when none qualifies)."""
    import pandas as pd

    pts = c5_points(c5)
    rows = []
    for r in pts[pts.method == APPROX].itertuples():
        cand = pts[(pts.method == ASYNC) & np.isclose(pts.q, r.q) & (pts.R_T <= tol * r.R_T)]
        if len(cand):
            best = cand.loc[cand.C_T.idxmin()]
            rows.append({"q": r.q, "approx_D": r.D, "approx_c": getattr(r, "c", np.nan), "approx_R": r.R_T,
                         "approx_C": r.C_T, "async_D": best.D, "async_D_label": best.D_label, "async_R": best.R_T,
                         "async_C": best.C_T, "ratio": best.C_T / r.C_T})
        else:
            rows.append({"q": r.q, "approx_D": r.D, "approx_c": getattr(r, "c", np.nan), "approx_R": r.R_T,
                         "approx_C": r.C_T, "async_D": np.nan, "async_D_label": "", "async_R": np.nan,
                         "async_C": np.nan, "ratio": np.nan})
    return pd.DataFrame(rows)


def _by_rep(df, col: str, **filters):
    """``(values, reps)`` of column ``col`` over the rows matching ``filters`` (numbers compared with
    ``np.isclose``), sorted by run index: one value per run, for pairing runs across settings."""
    m = np.ones(len(df), dtype=bool)
    for k, v in filters.items():
        m &= np.isclose(df[k].to_numpy(float), float(v))
    x = df[m].sort_values("rep")
    return x[col].to_numpy(float), x["rep"].to_numpy()


#: Issue 25: each claim's kind, quote, source and, for a verdict other than PASS, the cause given before the
#: runs. "implementation" where the check holds by construction or its bound is 10× or more from what is
#: observed (the committed full-mode values: C1 size 0.066 of the bound, C4 B 0.062, epochs 0.067, C_T 0.023;
#: C6 at D = 1/N² communicates at nearly every step, so B ≈ T whatever N; C2 at the theoretical q keeps every
#: point; C3 an identity of the merge; C9's α is ≈ 100× the width needed; C10 the protocols' definitions).
CLAIM_LABELS = {
    "C1-size-bound": dict(kind="implementation", source="Lemma 4.1"),
    "C1-grows-with-q": dict(source="Lemma 4.1"),
    "C1-expectation": dict(kind="implementation", source="Lemma A.8, Lemma 4.3"),
    "C4-B-decreasing": dict(source="Lemma D.1"),
    "C4-B-bound": dict(kind="implementation", source="Lemma D.1"),
    "C4-epoch-bound": dict(kind="implementation", source="Lemma D.1"),
    "C4-comm-decreasing": dict(source="Theorem 4.5"),
    "C4-comm-bound": dict(kind="implementation", source="Theorem 4.5"),
    "C5-tradeoff": dict(quote="verbatim", source="§5.2", cause="setting",
                        cause_note="neither D nor q of either method, nor Approx-DisKernelUCB's trigger, is given by "
                                   "the paper; the S5 environment (d = 5) is this package's"),
    "C6-B-slope": dict(kind="implementation", source="Theorem 4.5"),
    "C6-regret-flat": dict(source="Theorem 4.5"),
    "C6-B-linear-D": dict(source="Lemma D.1"),
    "C7-sublinear": dict(source="Theorem 4.5"),
    "C7-vs-NKernelUCB": dict(source="§5.2"),
    "C2-eps-shrinks": dict(source="Lemma 4.1"),
    "C2-eps-accuracy": dict(kind="implementation", source="Lemma 4.1"),
    "C2-variance-fidelity": dict(kind="implementation", source="Lemma A.6"),
    "C3-merge-in-runs": dict(kind="implementation", source="Eq. 5"),
    "C8-staleness-bound": dict(source="Lemma C.1"),
    "C8-rises-with-D": dict(source="Lemma C.1"),
    "C9-coverage": dict(kind="implementation", source="Lemma 4.4"),
    "C10-participation": dict(kind="implementation", source="§1, §3.1"),
    "C10-async-regret-unchanged": dict(source="§1"),
}


def label_claims(claims: list[Claim]) -> list[Claim]:
    """``claims`` with :data:`CLAIM_LABELS` applied (matched by id, or by id prefix for the per-D ids)."""
    import dataclasses

    out = []
    for c in claims:
        lab = CLAIM_LABELS.get(c.id) or next((v for k, v in CLAIM_LABELS.items() if c.id.startswith(k)), {})
        lab = {"kind": "paper", "quote": "paraphrase", **lab}
        out.append(dataclasses.replace(c, **lab))
    return out


def theory_claims(res: TheoryResults, level: float = 0.95) -> list[Claim]:
    """The claims of the module docstring for the checks present in ``res`` (thresholds fixed there).

    Since issue 11: orderings between settings (C1 grows with q, C4 falls with D, C5's trade-off)
    are paired comparisons over the shared runs (run r of every setting has the same environment,
    schedule and noise streams) with ``level`` intervals (:mod:`bandits.claims`); slopes keep
    their point test and report the OLS standard error; the per-run bound checks are unchanged."""
    from ..claims import bonferroni_level, combine, compare_paired, compare_ratio, compare_slopes, slope_check

    claims: list[Claim] = []
    p = res.params
    how = f"paired over runs, {level:.0%} interval"
    if res.c1 is not None and len(res.c1):
        c1 = res.c1
        ok = bool((c1.dict_size <= c1.size_bound).all())
        claims.append(Claim(
            "C1-size-bound", "|S_k| ≤ 12β(1+βD) q γ_T w.p. ≥ 1−δ  (Lemma 4.1)",
            "every run: |S_B| <= 12β(1+βD) q γ̂ (β = 3, γ̂ = ½ log det(I + K/λ) on the uploaded data)",
            f"max |S_B|/bound {fmt(float((c1.dict_size / c1.size_bound).max()))}; |S_B| {int(c1.dict_size.min())}"
            f"–{int(c1.dict_size.max())}", ok))
        g = c1.groupby(["D", "q"]).dict_size.mean()
        parts, cmp = [], []
        for D in sorted(c1.D.unique()):
            s_ = g.loc[D].sort_index()
            qs = list(s_.index)
            for q0, q1 in zip(qs, qs[1:]):
                a, b = _by_rep(c1, "dict_size", D=D, q=q1), _by_rep(c1, "dict_size", D=D, q=q0)
                cmp.append(compare_paired(a[0], b[0], ">", 0.0, label=f"D={fmt(D)}: |S_B|(q={fmt(q1)}) − |S_B|(q={fmt(q0)})",
                                          reps_a=a[1], reps_b=b[1], level=level))
            parts.append(f"D={fmt(D)}: " + ", ".join(f"q={fmt(q)}→{fmt(v, 3)}" for q, v in s_.items()))
        res_ = combine(cmp)
        claims.append(Claim.from_result(
            "C1-grows-with-q", "|S_k| ≤ 12β(1+βD) q γ_T: the dictionary scales with the oversampling q  (Lemma 4.1)",
            f"for every D, mean |S_B| strictly increasing along the q grid: every consecutive paired difference > 0 "
            f"({how})", res_, value="; ".join(parts) + f"; deciding: {res_.label}"))
        r = c1.dict_size / c1.expected_size
        ok = bool(((r >= 1 / 3) & (r <= 3)).all())
        claims.append(Claim(
            "C1-expectation", "|S_B| concentrates around Σ_s p̃_s  (Lemma A.8 via Lemma 4.3)",
            "every run: |S_B| / Σ_s min(1, q σ̃²_{k−1}(x_s)) in [1/3, 3]",
            f"ratio {fmt(float(r.min()), 3)}–{fmt(float(r.max()), 3)}; |S_B|/d_eff "
            f"{fmt(float(c1.S_over_deff.min()))}–{fmt(float(c1.S_over_deff.max()))}", ok))
    if res.c4 is not None and len(res.c4):
        c4 = res.c4
        m = c4.groupby("D")[["B", "C_T"]].mean().sort_index()
        Ds = list(m.index)

        def steps(col):
            out = []
            for d0, d1 in zip(Ds, Ds[1:]):
                a, b = _by_rep(c4, col, D=d1), _by_rep(c4, col, D=d0)
                out.append(compare_paired(a[0], b[0], "<=", 0.0, label=f"{col}(D={fmt(d1)}) − {col}(D={fmt(d0)})",
                                          reps_a=a[1], reps_b=b[1], level=level))
            return out

        a, b = _by_rep(c4, "B", D=Ds[-1]), _by_rep(c4, "B", D=Ds[0])
        res_ = combine(steps("B") + [compare_paired(a[0], b[0], "<", 0.0, label=f"B(D={fmt(Ds[-1])}) − B(D={fmt(Ds[0])})",
                                                    reps_a=a[1], reps_b=b[1], level=level)])
        claims.append(Claim.from_result(
            "C4-B-decreasing", "B ≤ 2γ_T(N + 4β/D): fewer communications as the threshold D grows  (Lemma D.1)",
            f"mean B non-increasing along the increasing D grid (every consecutive paired difference <= 0), and "
            f"B(max D) < B(min D) ({how})", res_,
            value=", ".join(f"D={fmt(D)}: {fmt(b, 3)}" for D, b in m.B.items()) + f"; deciding: {res_.label}"))
        ok = bool((c4.B <= c4.B_bound).all())
        claims.append(Claim(
            "C4-B-bound", "B ≤ 2γ_T(N + 4β/D)  (Lemma D.1)",
            "every run: B <= 2γ̂(N + 4β/D) (β = 3, γ̂ on the uploaded data)",
            f"max B/bound {fmt(float((c4.B / c4.B_bound).max()))}", ok))
        ok = bool((c4.max_per_epoch <= c4.epoch_bound).all())
        claims.append(Claim(
            "C4-epoch-bound", "each epoch (det(I + K_{D_k}/λ) doubles) has ≤ N + 4β/D communications  (Lemma D.1)",
            "every run, every dyadic det epoch: #exchanges <= N + 4β/D",
            f"max count/bound {fmt(float((c4.max_per_epoch / c4.epoch_bound).max()))}; epochs "
            f"{int(c4.n_epochs.min())}–{int(c4.n_epochs.max())}", ok))
        res_ = combine(steps("C_T"))
        claims.append(Claim.from_result(
            "C4-comm-decreasing", "C_T ≤ 2γ_T(N + 4β/D)(3(|S_B|² + |S_B|) + d|S_B|): cost falls as D grows  (Theorem 4.5)",
            f"mean C_T non-increasing along the increasing D grid: every consecutive paired difference <= 0 ({how})",
            res_, value=", ".join(f"D={fmt(D)}: {fmt(c)}" for D, c in m.C_T.items()) + f"; deciding: {res_.label}"))
        ok = bool((c4.C_T <= c4.C_bound).all())
        claims.append(Claim(
            "C4-comm-bound", "C_T ≤ 2γ_T(N + 4β/D)(3(|S_B|² + |S_B|) + d|S_B|)  (Theorem 4.5)",
            "every run: C_T (scalars, both directions) <= the bound with γ̂ and the final |S_B|",
            f"max C_T/bound {fmt(float((c4.C_T / c4.C_bound).max()))}", ok))
    if res.c5 is not None and len(res.c5) and {ASYNC, APPROX} <= set(res.c5.method):
        mt = c5_matches(res.c5)
        c5 = res.c5
        pts = c5_points(c5)
        per_approx = []
        for r in pts[pts.method == APPROX].itertuples():
            cand = pts[(pts.method == ASYNC) & np.isclose(pts.q, r.q)].sort_values("C_T")
            ap = c5[(c5.method == APPROX) & np.isclose(c5.q, r.q) & np.isclose(c5.D, r.D)]
            lev = bonferroni_level(level, max(1, len(cand)))  # existential over the Async points
            opts = []
            for cd in cand.itertuples():
                asy = c5[(c5.method == ASYNC) & np.isclose(c5.q, r.q) & np.isclose(c5.D, cd.D)]
                ra, rb = _by_rep(asy, "R_T"), _by_rep(ap, "R_T")
                ca, cb = _by_rep(asy, "C_T"), _by_rep(ap, "C_T")
                tag = f"q={fmt(r.q)}, Approx D={fmt(r.c)} vs Async D={cd.D_label}"
                opts.append(combine([
                    compare_ratio(ra[0], rb[0], "<=", 1.2, label=f"{tag}: R ratio", reps_a=ra[1], reps_b=rb[1],
                                  level=lev),
                    compare_ratio(ca[0], cb[0], "<", MUCH_SMALLER, label=f"{tag}: C ratio", reps_a=ca[1],
                                  reps_b=cb[1], level=lev)]))
            if opts:
                per_approx.append(combine(opts, how="any"))
        val = "; ".join(f"q={fmt(r.q)}, Approx D={fmt(r.approx_c)} (R {fmt(r.approx_R, 3)}, C {fmt(r.approx_C)}) → "
                        + (f"Async D={r.async_D_label} (R {fmt(r.async_R, 3)}), C ratio {fmt(r.ratio)}"
                           if np.isfinite(r.ratio) else "no Async point within 1.2×R")
                        for r in mt.itertuples())
        res_ = combine(per_approx) if per_approx else None
        check = ("for every Approx point (variance-sum trigger, as Figure 2), an Async point with the same q has "
                 f"R_T <= 1.2 × Approx's and much smaller C_T: ratio < {MUCH_SMALLER:g} (ratios of means on the "
                 "paired log-ratio; the Async points are alternatives, so each is tested at the Bonferroni level "
                 f"1 − {1 - level:g}/k; {how})")
        quote = ("Async-KernelUCB incurs much smaller communication cost empirically, while having comparable or "
                 "even better regret than Approx-DisKernelUCB")
        if res_ is None:
            claims.append(Claim("C5-tradeoff", quote, check, val or "no Async point", verdict="FAIL"))
        else:
            claims.append(Claim.from_result("C5-tradeoff", quote, check, res_, value=val + f"; deciding: {res_.label}"))
    if res.c6 is not None and len(res.c6):
        c6 = res.c6
        inv = c6[c6.D_label == INV_N2]
        if len(inv) and inv.N.nunique() >= 2:
            g = inv.groupby("N")[["B", "R_T", "C_T"]].mean()
            rB = slope_check(g.index, g.B, "<=", 2.0, label="log-log slope of B vs N", level=level)
            rR = slope_check(g.index, g.R_T, "<=", 0.5, label="log-log slope of R_T vs N", level=level)
            claims.append(Claim.from_result(
                "C6-B-slope", "B ≤ 2γ_T(N + 4βN²) at D = 1/N², i.e. C_T = Õ(N²γ_T³)  (Theorem 4.5)",
                "log-log slope of mean B vs N at D = 1/N² <= 2 (the fitted slope is tested, its OLS SE reported)", rB,
                value=f"slope {fmt(rB.effect)} (SE {fmt(rB.se)}; C_T slope {fmt(loglog_slope(g.index, g.C_T))})"))
            claims.append(Claim.from_result(
                "C6-regret-flat", "R_T = O(Nγ_T LS + √T(S√γ_T + γ_T)) at D = 1/N²: N enters only the warm-up term "
                "(Theorem 4.5; read here as 'nearly flat in N')",
                "log-log slope of mean R_T vs N at D = 1/N² <= 0.5 (the fitted slope is tested, its OLS SE reported)", rR,
                value=f"slope {fmt(rR.effect)} (SE {fmt(rR.se)}); R_T "
                + ", ".join(f"N={n}: {fmt(v, 3)}" for n, v in g.R_T.items())))
        fixed = c6[c6.D_label != INV_N2]
        for D in sorted(fixed.D.unique()):
            g = fixed[fixed.D == D].groupby("N").B.mean()
            if len(g) >= 2:
                r = slope_check(g.index, g.values, "<=", 1.0, label="log-log slope of B vs N", level=level)
                claims.append(Claim.from_result(
                    f"C6-B-linear-D{fmt(D)}", "B ≤ 2γ_T(N + 4β/D): at fixed D at most linear in N  (Lemma D.1)",
                    f"log-log slope of mean B vs N at D = {fmt(D)} <= 1 (the fitted slope is tested, its OLS SE "
                    "reported)", r, value=f"slope {fmt(r.effect)} (SE {fmt(r.se)})"))
    if res.c7 is not None and len(res.c7):
        c7 = res.c7
        a = c7[c7.method == ASYNC]
        fits, pts = {}, {}
        for lab in sorted(a.D_label.unique(), key=lambda s: resolve_D(s, p["N"])):
            g = a[a.D_label == lab].groupby("T").R_T.mean()
            pts[lab] = g
            fits[lab] = slope_check(g.index, g.values, "<", 1.0, label=f"D={lab}: log-log slope of R_T vs T",
                                    level=level)
        if fits:
            r = combine(list(fits.values()))
            claims.append(Claim.from_result(
                "C7-sublinear", "R_T ≤ 4Nγ_T LS + 4√2 α √(Tβ[1 + Nβ(L²/λ + D)]γ_T)  (Theorem 4.5): sublinear in T",
                "for every D, log-log slope of mean R_T vs T < 1 (the fitted slopes are tested, their OLS SEs reported)",
                r, value=", ".join(f"D={k}: {fmt(v.effect)} (SE {fmt(v.se)})" for k, v in fits.items())))
        n = c7[c7.method == NK]
        if len(n) and fits:
            g = n.groupby("T").R_T.mean()
            first = next(iter(fits))
            r = compare_slopes(pts[first].index, pts[first].values, g.index, g.values, "<",
                               label=f"slope Async (D={first}) − slope NKernelUCB", level=level)
            claims.append(Claim.from_result(
                "C7-vs-NKernelUCB", "NKernelUCB never communicates and is the high-regret extreme (§5; read here as "
                "'NKernelUCB is steeper')",
                f"Async's regret slope at D = {first} below NKernelUCB's (fitted slopes compared; the difference is "
                "reported with SE √(SE_A² + SE_N²))",
                r, value=f"Async {fmt(fits[first].effect)}, NKernelUCB {fmt(loglog_slope(g.index, g.values))}; "
                f"difference SE {fmt(r.se)}"))
    return label_claims(claims)


# ------------------------------------------------------------------------------ figures
def _log_ticks(ax, values):
    """Major ticks at ``values`` on a log axis, no minor labels."""
    from matplotlib.ticker import NullFormatter

    ax.set_xticks(list(values))
    ax.set_xticklabels([fmt(v, 3) for v in values])
    ax.xaxis.set_minor_formatter(NullFormatter())


_QCOL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def plot_c1(res: TheoryResults):
    """C1: |S_B| and the Lemma 4.1 bound vs q (log y), with d_eff; |S| against t per q."""
    from ..plotting import band_plot, setup_style

    plt = setup_style()
    c1, cur = res.c1, res.c1_curves
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(9, 3.4))
    for j, D in enumerate(sorted(c1.D.unique())):
        s = c1[c1.D == D].groupby("q")[["dict_size", "size_bound", "d_eff", "expected_size"]].mean()
        col = _QCOL[j % len(_QCOL)]
        a0.plot(s.index, s.dict_size, "o-", color=col, label=f"|S_B|, D={fmt(D)}")
        a0.plot(s.index, s.size_bound, "s--", color=col, alpha=0.6, label=f"12β(1+βD)qγ̂, D={fmt(D)}")
        a0.plot(s.index, s.expected_size, "x:", color=col, alpha=0.8)
    s = c1.groupby("q").d_eff.mean()
    a0.plot(s.index, s.values, "k^-", label="d_eff on uploaded data")
    a0.set_xscale("log")
    a0.set_yscale("log")
    _log_ticks(a0, sorted(c1.q.unique()))
    a0.set_xlabel("q (RLS oversampling)")
    a0.set_ylabel("size")
    a0.set_title("C1: dictionary size vs Lemma 4.1 (x: Σp̃)")
    a0.legend(fontsize=6)
    D0 = sorted(cur.D.unique())[len(cur.D.unique()) // 2]
    for j, q in enumerate(sorted(cur.q.unique())):
        c = cur[(cur.q == q) & (cur.D == D0)]
        pv = c.pivot(index="rep", columns="t", values="dict_size")
        band_plot(a1, pv.columns.values, pv.values, f"q={fmt(q)}", _QCOL[j % len(_QCOL)], bounds=(0, None))
    a1.set_xlabel("t")
    a1.set_ylabel("|S_k|")
    a1.set_title(f"C1: dictionary growth (D={fmt(D0)}), mean ± 1 s.e.")
    a1.legend()
    fig.tight_layout()
    return fig


def plot_c4(res: TheoryResults):
    """C4: B vs D (log-log) with 2γ̂(N + 4β/D), and C_T vs D with Theorem 4.5's bound."""
    from ..plotting import setup_style

    plt = setup_style()
    c4 = res.c4
    m = c4.groupby("D")[["B", "B_bound", "C_T", "C_bound"]].mean().sort_index()
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(9, 3.4))
    a0.scatter(c4.D, c4.B, s=10, color="#d62728", alpha=0.5)
    a0.plot(m.index, m.B, "o-", color="#d62728", label="B (Async-KernelUCB)")
    a0.plot(m.index, m.B_bound, "s--", color="k", label="2γ̂(N + 4β/D)")
    a0.axhline(res.params["T"], color="grey", lw=0.8, ls=":", label="T")
    a0.set_xscale("log")
    a0.set_yscale("log")
    a0.set_xlabel("threshold D")
    a0.set_ylabel("communications B")
    a0.set_title("C4: Lemma D.1")
    a0.legend(fontsize=7)
    a1.scatter(c4.D, c4.C_T, s=10, color="#d62728", alpha=0.5)
    a1.plot(m.index, m.C_T, "o-", color="#d62728", label="C_T (scalars)")
    a1.plot(m.index, m.C_bound, "s--", color="k", label="Theorem 4.5 bound")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("threshold D")
    a1.set_ylabel("C_T")
    a1.set_title("C4: communication cost")
    a1.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_c5(res: TheoryResults):
    """C5: final (C_T, R_T) per setting (means over runs) with Pareto fronts per (method, q)."""
    from ..plotting import setup_style

    plt = setup_style()
    pts = c5_points(res.c5)
    fig, ax = plt.subplots(figsize=(6, 4))
    styles = {ASYNC: ("o", "-"), APPROX: ("s", "--")}
    for j, q in enumerate(sorted(pts.q.dropna().unique())):
        col = _QCOL[j % len(_QCOL)]
        for m, (mk, ls) in styles.items():
            s = pts[(pts.method == m) & np.isclose(pts.q, q)]
            if not len(s):
                continue
            ax.scatter(s.C_T, s.R_T, marker=mk, color=col, s=28, facecolors="none" if m == APPROX else col)
            f = _pareto(s)
            ax.plot(f.C_T, f.R_T, ls, color=col, lw=1.2, label=f"{m}, q={fmt(q)}")
            if m == ASYNC:
                for r in s.itertuples():
                    ax.annotate(f"D={r.D_label}", (r.C_T, r.R_T), fontsize=5, alpha=0.7)
    for m, col in ((ONE, "k"), (NK, "grey")):
        s = pts[pts.method == m]
        if len(s):
            ax.scatter(np.maximum(s.C_T, 1.0), s.R_T, marker="*", s=90, color=col, label=f"{m}"
                       + (" (C=0 at floor)" if m == NK else ""))
    ax.set_xscale("log")
    ax.set_xlabel("C_T (scalars, both directions)")
    ax.set_ylabel("R_T")
    p = res.params
    ax.set_title(f"C5: regret–communication trade-off (d={p['d']}, N={p['N']}, T={p['T']})")
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


def plot_scaling(res: TheoryResults):
    """C6 (B, R_T vs N) and C7 (R_T vs T, log-log)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    if res.c6 is not None:
        for j, lab in enumerate(sorted(res.c6.D_label.unique())):
            g = res.c6[res.c6.D_label == lab].groupby("N")[["B", "R_T"]].mean()
            axes[0].plot(g.index, g.B, "o-", color=_QCOL[j], label=f"B, D={lab}")
            axes[0].plot(g.index, g.R_T, "s--", color=_QCOL[j], label=f"R_T, D={lab}")
        axes[0].set_xscale("log")
        axes[0].set_yscale("log")
        _log_ticks(axes[0], sorted(res.c6.N.unique()))
        axes[0].set_xlabel("N")
        axes[0].set_ylabel("B (o) and R_T (s)")
        axes[0].set_title("C6: scaling with N")
        axes[0].legend(fontsize=7)
    if res.c7 is not None:
        for j, (key, s) in enumerate(res.c7.groupby(["method", "D_label"], dropna=False)):
            g = s.groupby("T").R_T.mean()
            lab = key[0] + (f", D={key[1]}" if key[0] == ASYNC else "")
            axes[1].plot(g.index, g.values, "o-", color=_QCOL[j % len(_QCOL)],
                         label=f"{lab} (slope {fmt(loglog_slope(g.index, g.values))})")
        axes[1].set_xscale("log")
        axes[1].set_yscale("log")
        axes[1].set_xlabel("T")
        axes[1].set_ylabel("R_T")
        axes[1].set_title("C7: regret growth")
        axes[1].legend(fontsize=7)
    fig.tight_layout()
    return fig


# ============================================================================== checks C2, C3, C8, C9, C10
# They live in async_theory_extra (which imports this module's settings and helpers) and are re-exported
# here lazily (PEP 562): an eager import at the bottom of this module would be circular when a loky worker
# unpickles ``async_theory_extra.run_extra_cell`` and so imports async_theory_extra first.
_EXTRA_NAMES = frozenset({"ExtraResults", "run_extra", "run_extra_cell", "extra_claims", "plot_extra",
                          "make_rkhs_env", "alpha_lemma44", "gamma_proxy", "_ZipfSchedule", "_ProbeAsync",
                          "_ActivityEnv", "_eps_hat", "_exact_var", "_staleness", "_extra_config", "_extra_tasks",
                          "_rkhs_f"})


def __getattr__(name: str):
    if name in _EXTRA_NAMES:
        from . import async_theory_extra
        return getattr(async_theory_extra, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _EXTRA_NAMES)
