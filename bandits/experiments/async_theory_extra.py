r"""Checks C2, C3, C8, C9 and C10 of Async-KernelUCB's theory (issue 13; checks of this package, each naming the lemma it tests).

Split out of :mod:`bandits.experiments.async_theory` (whose module docstring states the setting, the
thresholds and every claim of these checks) and re-exported from it, so
``from bandits.experiments.async_theory import run_extra`` keeps working. The setting, the seeds
(:func:`~bandits.runner.run_seeds`), the recording policy and the uploaded-data helpers are those of
:mod:`~bandits.experiments.async_theory`; :func:`run_extra_cell` is the pure worker handed to
:func:`bandits.runner.sweep`.
"""
from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..algorithms import get_algorithm
from ..algorithms.async_kernel_ucb import lemma41_q
from ..comm import CommLedger
from ..envs.base import ContextualEnv
from ..envs.functions import sample_ball
from ..kernels import make_kernel
from ..runner import run_seeds, sweep
from ..sim import run_regret
from .async_theory import (APPROX, ASYNC, EXTRA_CHECKS, _ball, _beta, _by_rep, _config, _dlabel, _RecordingAsync,
                           make_theory_env, resolve_D, upload_order)
from .common import Claim, ParameterError, check_subset, fmt

__all__ = ["EXTRA_CHECKS", "ExtraResults", "run_extra", "run_extra_cell", "extra_claims", "plot_extra", "make_rkhs_env",
           "alpha_lemma44", "gamma_proxy"]


class _ZipfSchedule:
    """One active client per step, client ``i`` (0-based) with probability ∝ ``(i + 1)^(−s)``
    (truncated Zipf law, s = 1.2: a choice of this package; the paper names no arrival law): client 0 is active most often, the last one rarely."""

    def __init__(self, s: float):
        self.s = float(s)

    def active(self, t: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        w = np.arange(1, n_agents + 1, dtype=float) ** (-self.s)
        return np.array([int(np.searchsorted(np.cumsum(w / w.sum()), rng.random(), side="right"))])


def make_rkhs_env(spec: dict, env_seed: int) -> ContextualEnv:
    """The C9 environment (a choice of this package): ``f(x) = Σ_{j ≤ n_centres} a_j k(x, c_j)`` with the Gaussian
    kernel ``k(x, y) = exp(−γ_k‖x − y‖²)`` of the algorithm, centres ``c_j`` uniform in the unit ball
    of R^d, ``a ~ N(0, I)`` rescaled so that ``‖f‖_k = √(aᵀK_cc a) = 1``; contexts uniform in the
    unit ball, Gaussian noise ``noise_std``. Drawn from ``SeedSequence([env_seed, crc32("rkhs-d{d}")])``.
    """
    d, m = int(spec["d"]), int(spec["n_centres"])
    kern = make_kernel({"name": "rbf", "gamma": float(spec["gamma_k"])})
    rng = np.random.default_rng(np.random.SeedSequence([int(env_seed), zlib.crc32(f"rkhs-d{d}".encode())]))
    c = sample_ball(rng, m, d)
    a = rng.standard_normal(m)
    a /= math.sqrt(float(a @ kern(c) @ a))
    c.setflags(write=False)
    a.setflags(write=False)
    return ContextualEnv(sampler=partial(_ball, d=d), f=partial(_rkhs_f, kern=kern, c=c, a=a), n_arms=int(spec["K"]),
                         dim=d, noise_std=float(spec["noise_std"]), name=f"rkhs-d{d}", schedule="uniform",
                         info={"centres": c, "a": a})


def _rkhs_f(X, kern, c, a):
    return kern(np.atleast_2d(X), c) @ a


def alpha_lemma44(N: int, D: float, lam: float, S: float, R: float, eps: float, delta: float, gamma: float) -> float:
    """Lemma 4.4's width (main-text form):
    ``α = (1/√(1−ε) + 1)√λ S + 2R(√(1 + NDβ) + N√(2Dβ))·√(ln(1/δ) + γ)``, ``β = (1+ε)/(1−ε)``."""
    beta = (1.0 + eps) / (1.0 - eps)
    return float((1.0 / math.sqrt(1.0 - eps) + 1.0) * math.sqrt(lam) * S
                 + 2.0 * R * (math.sqrt(1.0 + N * D * beta) + N * math.sqrt(2.0 * D * beta))
                 * math.sqrt(math.log(1.0 / delta) + gamma))


def gamma_proxy(p: dict, D: float, n: int, seed: int = 0) -> float:
    """The data-dependent γ of Lemma 4.4, ``½ log det(I + K/(Dβλ))``, fixed *before* the runs on
    ``n`` points drawn uniformly from the context distribution (the unit ball) with a fixed seed.
    (Lemma 4.4's γ_T is a maximum over data sets of size T; the chosen contexts are not uniform,
    so this is a proxy, documented as such.)"""
    kern = make_kernel({"name": "rbf", "gamma": float(p["gamma_k"])})
    X = sample_ball(np.random.default_rng(np.random.SeedSequence([seed, 44])), n, int(p["d"]))
    w = np.clip(np.linalg.eigvalsh(kern(X)), 0.0, None)
    return float(0.5 * np.sum(np.log1p(w / (D * _beta(p) * p["lam"]))))


class _ProbeAsync(_RecordingAsync):
    """:class:`_RecordingAsync` that also records, without changing a single draw,

    * the RLS probability ``p_s`` and the uniform ``u_s`` of every uploaded point (the generator is
      rewound after peeking, so the algorithm draws the same numbers), for ε̂ of check C2;
    * with ``truth`` (a callable ``f``) the coverage of check C9 at every step: over the active
      client's K arms, ``r(x) = |f(x) − μ̃(x)| / σ̃(x)`` under the client's stale model.
    """

    def __init__(self, *args, truth=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.rec_p: list[float] = []
        self.rec_u: list[float] = []
        self.truth = truth
        self.cov_max: list[float] = []
        self.cov_hit: list[int] = []

    def _exchange(self, t, i):
        Xb = np.vstack(self.buf_X[i])
        _, s2 = self.posterior(self.server_model, Xb, mean=False)
        p = np.minimum(1.0, self.q * s2)
        state = self.rng_rls.bit_generator.state
        u = self.rng_rls.random(len(p))
        self.rng_rls.bit_generator.state = state
        self.rec_p.extend(np.nan_to_num(p, nan=0.0).tolist())
        self.rec_u.extend(u.tolist())
        super()._exchange(t, i)

    def select(self, t, agents, arms):
        if self.truth is not None:
            for j, i in enumerate(agents):
                X = arms.for_agent(j)
                mu, s2 = self.posterior(self.models[int(i)], X)
                r = np.abs(np.asarray(self.truth(X)) - mu) / np.sqrt(np.maximum(s2, 1e-300))
                self.cov_max.append(float(r.max()))
                self.cov_hit.append(int(np.sum(r <= self.alpha)))
        return super().select(t, agents, arms)


class _ActivityEnv:
    """Delegates to an environment and records the active clients of every step (C10)."""

    def __init__(self, env):
        self.env, self.active = env, []

    def __getattr__(self, name):
        return getattr(self.env, name)

    def round(self, t, n_agents, rng):
        agents, arms, means = self.env.round(t, n_agents, rng)
        self.active.append(int(agents[0]) if len(agents) == 1 else -1)
        return agents, arms, means


def _eps_hat(kernel, X: np.ndarray, w: np.ndarray, lam: float) -> float:
    """ε̂ (Lemma 4.1's ε-accuracy, measured): ``ε̂ = ‖(K+λI)^{-1/2} K^{1/2} (diag(w) − I) K^{1/2} (K+λI)^{-1/2}‖₂`` on the uploaded
    data (``K = K_{D_B}``), from one eigendecomposition ``K = UΛUᵀ``:
    ``(K+λI)^{-1/2}K^{1/2} = U diag(√(Λ/(Λ+λ))) Uᵀ``, so ``ε̂ = ‖G (diag(w) − I) Gᵀ‖₂``,
    ``G = diag(√(Λ/(Λ+λ))) Uᵀ``."""
    if X.shape[0] == 0:
        return 0.0
    ev, U = np.linalg.eigh(kernel(X))
    G = np.sqrt(np.clip(ev, 0.0, None) / (np.clip(ev, 0.0, None) + lam))[:, None] * U.T
    M = (G * (w - 1.0)[None, :]) @ G.T
    return float(np.max(np.abs(np.linalg.eigvalsh(0.5 * (M + M.T)))))


def _exact_var(kernel, Xd: np.ndarray, Xq: np.ndarray, lam: float) -> np.ndarray:
    """Exact posterior variance (Eq. 1, 1/λ scale) of the data ``Xd`` at ``Xq``."""
    from scipy.linalg import cho_factor, solve_triangular

    kd = kernel.diag(Xq)
    if Xd.shape[0] == 0:
        return kd / lam
    A = kernel(Xd)
    A[np.diag_indices_from(A)] += lam
    L = cho_factor(A, lower=True)[0]
    V = solve_triangular(L, kernel(Xd, Xq), lower=True, check_finite=False)
    return np.maximum(kd - np.einsum("ij,ij->j", V, V), 0.0) / lam


def _staleness(kernel, rec_x, rec_client, rec_t, info, lam: float, probes: np.ndarray) -> dict:
    """Check C8 with exact bookkeeping (the policy runs with ``q = inf``: the dictionary spans the
    uploaded data, so its σ̃ is the exact σ of the uploaded data and β = 1).

    * ``lemma`` (Lemma C.1, as the paper states it): at every exchange ``k`` (step ``t_k``) and
      every probe ``x`` (the chosen points of the run and fresh uniform probes),
      ``σ²_{D_k}(x) / σ²_{[t_k]}(x)``: the variance under the server's data after the exchange
      over that under *all* data observed up to ``t_k`` by every client (uploaded or not);
      the lemma bounds it by ``1 + NβD``. Returns the max over probes per exchange, shape (B,).
    * ``client`` (a per-client reading of C8): at every step, ``σ²_{D_{k(i_t)}}(x_t) /
      σ²_{<t}(x_t)``, the variance under the data of the *active client's* stale model over that
      under all data before ``t``; shape (T,). Not bounded by the lemma (the regret proof treats
      a client's own staleness separately, by the det-doubling epochs); reported, not checked.

    Two Cholesky factors give every prefix at once: time order (``[t]``) and upload order
    (``D_k``); ``σ²_{prefix n}(x) = (k(x,x) − ‖(L⁻¹k(x))_{:n}‖²)/λ``.
    """
    from scipy.linalg import cholesky, solve_triangular

    X = np.asarray(rec_x, dtype=float)
    T = X.shape[0]
    P = np.vstack([X, probes])
    kdP = kernel.diag(P)

    def prefix_vars(Xd):
        A = kernel(Xd)
        A[np.diag_indices(Xd.shape[0])] += lam
        L = cholesky(A, lower=True, check_finite=False)
        V = solve_triangular(L, kernel(Xd, P), lower=True, check_finite=False)
        cum = np.vstack([np.zeros((1, P.shape[0])), np.cumsum(V * V, axis=0)])
        return np.maximum(kdP[None, :] - cum, 1e-300) / lam  # row n: variance under the first n points

    s2_time = prefix_vars(X)  # (T + 1, P)
    order, n_k = upload_order(rec_client, rec_t, info["comm_steps"], info["comm_clients"])
    s2_up = prefix_vars(X[order]) if len(order) else np.full((1, P.shape[0]), 1.0 / lam) * kdP
    steps, clients = np.asarray(info["comm_steps"], dtype=np.int64), np.asarray(info["comm_clients"])
    t_index = {int(t): s for s, t in enumerate(rec_t)}  # one active client per step
    lemma = np.array([float(np.max(s2_up[n_k[k]] / s2_time[t_index[int(steps[k])] + 1]))
                      for k in range(len(steps))])
    held = np.zeros(T, dtype=np.int64)
    last = {}
    e = 0
    for s_ in range(T):
        while e < len(steps) and steps[e] < rec_t[s_]:
            last[int(clients[e])] = int(n_k[e])
            e += 1
        held[s_] = last.get(int(rec_client[s_]), 0)
    client = s2_up[held, np.arange(T)] / s2_time[np.arange(T), np.arange(T)]
    return {"lemma": lemma, "client": client}


def _extra_config(p: dict, check: str, rep: int, method: str = ASYNC, D=None, q=None, alpha=None, c=None,
                  schedule: str = "uniform", basis: str = "chol") -> dict:
    N, T = p["N"], p["extra_T"]
    cfg = _config(p, method, N, T, rep, D=D, q=q, c=c)
    cfg["loop"] = "async_theory_extra"
    cfg["check"] = check
    cfg["env"] = dict(cfg["env"], schedule=schedule)
    if check == "C9":
        cfg["env"] = {"name": "rkhs", "d": int(p["d"]), "K": int(p["K"]), "noise_std": float(p["c9_R"]),
                      "gamma_k": float(p["gamma_k"]), "n_centres": int(p["c9_centres"]), "schedule": "uniform"}
    if method == ASYNC:
        if alpha is not None:
            cfg["params"]["alpha"] = float(alpha)
        if basis != "chol":
            cfg["params"]["basis"] = basis
    return cfg


def run_extra_cell(config: dict, seed: int, rep: int) -> dict:
    """One run of checks C2, C3, C8, C9, C10 (pure function of its arguments, seeds as
    :func:`bandits.runner.run_cell`), reduced inside the worker to the check's numbers."""
    import json

    from ..runner import _canonical

    N, T, check = int(config["N"]), int(config["T"]), config["check"]
    es = config["env"]
    if es["name"] == "rkhs":
        env = make_rkhs_env(es, config.get("env_seed", 0))
    else:
        env = make_theory_env({k: v for k, v in es.items() if k != "schedule"}, config.get("env_seed", 0))
        if es.get("schedule", "uniform").startswith("zipf"):
            env._sched = _ZipfSchedule(float(es["schedule"].split(":")[1]))
    wenv = _ActivityEnv(env)
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    alg = config["algorithm"]
    params = dict(config.get("params", {}))
    if alg == "AsyncKernelUCB":
        kw = {"truth": env.f} if check == "C9" else {}
        if check == "C3":
            params["keep_client_records"] = True
        policy = _ProbeAsync(N, T, env.dim, alg_ss, ledger, **params, **kw)
    else:
        policy = get_algorithm(alg)(N, T, env.dim, alg_ss, ledger, **params)
    trace = run_regret(policy, wenv, T, N, rng_env, rng_noise)
    meta = {"R_T": float(trace.regret.sum()), "C_T": float(ledger.total_up + ledger.total_down),
            "wall_time": trace.wall_time}
    arrays = {"regret": trace.regret}
    if alg == "AsyncKernelUCB":
        info = trace.info
        meta["B"], meta["dict_size"] = int(info["n_comms"]), int(info["dict_size"])
        lam, kern = policy.lam, policy.kernel
        if check == "C2":
            order, _ = upload_order(policy.rec_client, policy.rec_t, info["comm_steps"], info["comm_clients"])
            X = np.asarray(policy.rec_x)[order] if len(order) else np.zeros((0, env.dim))
            p_, u_ = np.asarray(policy.rec_p), np.asarray(policy.rec_u)
            w = np.where(u_ < p_, 1.0 / np.maximum(p_, 1e-300), 0.0)
            meta["eps_hat"] = _eps_hat(kern, X, w, lam)
            probes = sample_ball(np.random.default_rng(np.random.SeedSequence([int(rep), 2, 500])), 500, env.dim)
            s2t = policy.posterior(policy.server_model, probes, mean=False)[1]
            s2 = _exact_var(kern, X, probes, lam)
            arrays["var_ratio"] = s2t / np.maximum(s2, 1e-300)
            meta["n_uploaded"] = int(len(order))
        if check == "C3":
            A_pc, b_pc = policy.per_client_aggregate()
            scale = max(1.0, float(np.abs(policy.A).max()))
            meta["agg_err"] = float(max(np.abs(A_pc - policy.A).max(), np.abs(b_pc - policy.b).max()) / scale)
            probes = sample_ball(np.random.default_rng(np.random.SeedSequence([int(rep), 3, 200])), 200, env.dim)
            mu, s2 = policy.posterior(policy.server_model, probes)
            arrays["probe_mu"], arrays["probe_s2"] = mu, s2
            arrays["choices"] = np.asarray(policy.rec_x)
        if check == "C8":
            probes = sample_ball(np.random.default_rng(np.random.SeedSequence([int(rep), 8, 200])), 200, env.dim)
            st = _staleness(kern, policy.rec_x, policy.rec_client, policy.rec_t, info, lam, probes)
            arrays["lemma_ratio"], arrays["client_ratio"] = st["lemma"], st["client"]
        if check == "C9":
            arrays["cov_max"] = np.asarray(policy.cov_max)
            meta["coverage"] = float(np.sum(policy.cov_hit) / (len(policy.cov_hit) * env.n_arms))
    if check == "C10":
        act = np.asarray(wenv.active)
        last = np.full(N, -1)
        parts, absent = [], []
        by_t: dict[int, set] = {}
        for m in ledger.messages:
            if m.direction == "up":
                by_t.setdefault(m.t, set()).add(m.sender)
        # the longest absence (steps since the client was last active) of any participant, per sync
        for t in range(T):
            last[act[t]] = t
            if t in by_t:
                who = sorted(by_t[t])
                parts.append(len(who))
                absent.append(int(max(t - last[c] if last[c] >= 0 else t + 1 for c in who)))
        arrays["participants"] = np.asarray(parts, dtype=np.int64)
        arrays["max_absence"] = np.asarray(absent, dtype=np.int64)
        arrays["activity"] = np.bincount(act, minlength=N)
    return {"arrays": arrays, "meta": json.loads(_canonical(meta))}


@dataclass
class ExtraResults:
    """Tables of :func:`run_extra` (one row per run; ``c9_curves``: coverage vs α)."""

    params: dict
    c2: object = None
    c3: object = None
    c8: object = None
    c9: object = None
    c10: object = None

    def frames(self) -> dict:
        return {k: getattr(self, k) for k in ("c2", "c3", "c8", "c9", "c10") if getattr(self, k) is not None}


def _extra_tasks(p: dict, checks) -> list[tuple[dict, dict]]:
    out = []
    N = p["N"]
    for check in checks:
        reps = range(p["extra_runs"])
        if check == "C2":
            qs = list(p["c2_q"]) + ([lemma41_q(p["extra_T"], p["c9_delta"], p["eps"])] if p["c2_q_theory"] else [])
            for q in qs:
                for rep in reps:
                    out.append(({"check": check, "method": ASYNC, "q": float(q), "D": 1.0, "rep": rep},
                                _extra_config(p, check, rep, D=1.0, q=q)))
        elif check == "C3":
            for basis in ("chol", "eig"):
                for rep in range(p["c3_runs"]):
                    out.append(({"check": check, "method": ASYNC, "basis": basis, "rep": rep},
                                _extra_config(p, check, rep, D=1.0, q=p["c4_q"], basis=basis)))
        elif check == "C8":
            for D in p["c8_D"]:
                for rep in reps:
                    out.append(({"check": check, "method": ASYNC, "D": resolve_D(D, N), "D_label": _dlabel(D),
                                 "rep": rep}, _extra_config(p, check, rep, D=resolve_D(D, N), q=math.inf)))
        elif check == "C9":
            D = 1.0
            g = gamma_proxy(p, D, p["extra_T"])
            a_th = alpha_lemma44(N, D, p["lam"], 1.0, p["c9_R"], p["eps"], p["c9_delta"], g)
            for kind, a in (("theory", a_th), ("alpha=1", 1.0)):
                for rep in reps:
                    out.append(({"check": check, "method": ASYNC, "alpha_kind": kind, "alpha": a, "gamma_proxy": g,
                                 "rep": rep}, _extra_config(p, check, rep, D=D, q=p["c4_q"], alpha=a)))
        elif check == "C10":
            sched = f"zipf:{p['c10_s']:g}"
            for s in ("uniform", sched):
                for m in (ASYNC, APPROX):
                    for rep in range(p["c10_runs"] if m == ASYNC else p["c10_approx_runs"]):
                        kw = {"D": 1.0, "q": p["c4_q"]}  # Approx: Figure 2's variance-sum trigger, D = 1
                        out.append(({"check": check, "method": m, "schedule": s, "rep": rep},
                                    _extra_config(p, check, rep, method=m, schedule=s, **kw)))
        else:
            raise ParameterError(f"parameter 'extra_checks' has unknown value {check!r}; allowed: {list(EXTRA_CHECKS)}")
    return out


def run_extra(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None, progress: bool = True,
              checks=None) -> ExtraResults:
    """Run checks C2, C3, C8, C9, C10 (default ``p["extra_checks"]``) in one sweep."""
    import pandas as pd

    checks = list(p["extra_checks"] if checks is None else checks)
    check_subset("extra_checks", checks, EXTRA_CHECKS)
    labelled = _extra_tasks(p, checks)
    results, _ = sweep([(cfg, lab["rep"]) for lab, cfg in labelled], seed, n_jobs=n_jobs, backend=backend,
                       cache_dir=cache_dir, progress=progress, desc="Async-KernelUCB theory (C2, C3, C8–C10)",
                       fn=run_extra_cell)
    rows = {c: [] for c in EXTRA_CHECKS}
    c3_arrays = {}
    for (lab, cfg), res in zip(labelled, results):
        a, m = res["arrays"], res["meta"]
        row = {**lab, "R_T": m["R_T"], "C_T": m["C_T"], "B": m.get("B", np.nan), "dict_size": m.get("dict_size", np.nan)}
        c = lab["check"]
        if c == "C2":
            vr = a["var_ratio"]
            e = m["eps_hat"]
            lo, hi = ((1 - e) / (1 + e), (1 + e) / (1 - e)) if e < 1 else (0.0, math.inf)
            row.update(eps_hat=e, ratio_min=float(vr.min()), ratio_max=float(vr.max()), band_lo=lo, band_hi=hi,
                       frac_in_band=float(np.mean((vr >= lo * (1 - 1e-9)) & (vr <= hi * (1 + 1e-9)))),
                       n_uploaded=m["n_uploaded"])
        elif c == "C3":
            row["agg_err"] = m["agg_err"]
            c3_arrays[(lab["basis"], lab["rep"])] = a
        elif c == "C8":
            r, rc = a["lemma_ratio"], a["client_ratio"]
            row.update(max_ratio=float(r.max()) if len(r) else 1.0, mean_ratio=float(r.mean()) if len(r) else 1.0,
                       client_max_ratio=float(rc.max()), client_q99_ratio=float(np.quantile(rc, 0.99)),
                       bound=1.0 + p["N"] * lab["D"])
        elif c == "C9":
            cm = a["cov_max"]
            row.update(coverage=m["coverage"], alpha_full=float(cm.max()), alpha_99=float(np.quantile(cm, 0.99)))
        elif c == "C10":
            act = a["activity"]
            row.update(n_comm_steps=int(len(a["participants"])),
                       mean_participants=float(a["participants"].mean()) if len(a["participants"]) else 0.0,
                       max_participants=int(a["participants"].max()) if len(a["participants"]) else 0,
                       max_absence=int(a["max_absence"].max()) if len(a["max_absence"]) else 0,
                       rarest_activity=int(act.min()), top_activity=int(act.max()))
        rows[c].append(row)
    out = ExtraResults(p)
    for c in checks:
        df = pd.DataFrame(rows[c]).drop(columns=["check"])
        if c == "C3":
            df = df[df.basis == "chol"].reset_index(drop=True)
            same, dmu, ds2 = [], [], []
            for r in df.rep:
                a0, a1 = c3_arrays[("chol", r)], c3_arrays[("eig", r)]
                same.append(float(np.mean(np.all(np.isclose(a0["choices"], a1["choices"], rtol=0, atol=1e-12),
                                                  axis=1))) if a0["choices"].shape == a1["choices"].shape else 0.0)
                dmu.append(float(np.abs(a0["probe_mu"] - a1["probe_mu"]).max()))
                ds2.append(float(np.abs(a0["probe_s2"] - a1["probe_s2"]).max()))
            df = df.assign(same_choices=same, probe_mu_diff=dmu, probe_s2_diff=ds2)
        setattr(out, c.lower(), df)
    return out


def extra_claims(ext: ExtraResults, level: float = 0.95) -> list[Claim]:
    """Claims of checks C2, C3, C8, C9, C10 (thresholds fixed in the module docstring before the runs)."""
    from ..claims import combine, compare_equivalent, compare_paired

    claims: list[Claim] = []
    p = ext.params
    how = f"paired over runs, {level:.0%} interval"
    eps = p["eps"]
    if ext.c2 is not None and len(ext.c2):
        c2 = ext.c2
        g = c2.groupby("q").agg(eps=("eps_hat", "mean"), acc=("eps_hat", lambda x: float(np.mean(x <= eps))),
                                rmax=("ratio_max", "max"), rmin=("ratio_min", "min"))
        qs = sorted(c2.q.unique())
        cmp = []
        for q0, q1 in zip(qs, qs[1:]):
            a, b = _by_rep(c2, "eps_hat", q=q1), _by_rep(c2, "eps_hat", q=q0)
            cmp.append(compare_paired(a[0], b[0], "<", 0.0, label=f"ε̂(q={fmt(q1)}) − ε̂(q={fmt(q0)})", reps_a=a[1],
                                      reps_b=b[1], level=level))
        r = combine(cmp)
        claims.append(Claim.from_result(
            "C2-eps-shrinks", "S_k is ε-accurate w.r.t. D_k for q = 4 ln(2√2T/δ)β(1+ε/3)/ε²  (Lemma 4.1): the "
            "accuracy improves with the oversampling q",
            f"ε̂ = ‖(K+λI)^-1/2 K^1/2 (diag(q_s/p_s) − I) K^1/2 (K+λI)^-1/2‖ on the uploaded data at the end of each run; "
            f"every consecutive paired difference along the q grid < 0 ({how})", r,
            value="; ".join(f"q={fmt(q)}: mean ε̂ {fmt(v.eps)}, share ε̂ <= {eps:g}: {fmt(v.acc)}" for q, v in g.iterrows())
            + f"; deciding: {r.label}"))
        qt = max(qs)
        share = float(g.loc[qt, "acc"])
        claims.append(Claim(
            "C2-eps-accuracy", "with q = 4 ln(2√2T/δ)β(1+ε/3)/ε², w.p. ≥ 1 − δ, for all k, S_k is ε-accurate w.r.t. D_k "
            "(Lemma 4.1)",
            f"share of runs with ε̂ <= ε = {eps:g} at the largest q of the grid (q = {fmt(qt, 3)}"
            + (", Lemma 4.1's value for T" if p["c2_q_theory"] else "") + f") >= 1 − δ = {1 - p['c9_delta']:g}. Weak by "
            "construction at the theoretical q: p_s = min(1, qσ̃²) is 1 for nearly every point, so nothing is "
            "compressed and ε̂ ≈ 0; the shares at the practical q (above) are the informative part",
            f"share {fmt(share)} of {int((c2.q == qt).sum())} runs; mean ε̂ {fmt(float(g.loc[qt, 'eps']))}",
            share >= 1 - p["c9_delta"]))
        big = c2[c2.q >= 1.0]
        ok = bool((big.frac_in_band >= 1.0).all())
        n_inf = int((big.eps_hat < 1).sum())
        claims.append(Claim(
            "C2-variance-fidelity", "(1−ε)/(1+ε) σ²_k(x) ≤ σ̃²_k(x) ≤ (1+ε)/(1−ε) σ²_k(x) for an ε-accurate S_k  (Lemma A.6)",
            "every run with q >= 1: σ̃²_B/σ²_{D_B} (server model vs exact KRR on the same uploaded data) at 500 fresh "
            "probes lies in [(1−ε̂)/(1+ε̂), (1+ε̂)/(1−ε̂)] with that run's ε̂ (weak where ε̂ >= 1: the band is then "
            "vacuous; the number of runs with a finite band is given)",
            f"{int((big.frac_in_band >= 1).sum())}/{len(big)} runs inside; finite band in {n_inf}/{len(big)} runs; ratios "
            + ", ".join(f"q={fmt(q)}: {fmt(v.rmin, 3)}–{fmt(v.rmax, 3)}" for q, v in g.iterrows()), ok))
    if ext.c3 is not None and len(ext.c3):
        c3 = ext.c3
        ok = bool((c3.agg_err <= 1e-9).all() and (c3.same_choices >= 1.0).all()
                  and (c3.probe_mu_diff <= 1e-6).all() and (c3.probe_s2_diff <= 1e-6).all())
        claims.append(Claim(
            "C3-merge-in-runs", "Ã_k = T_{k−1,k}ᵀÃ_{k−1}T_{k−1,k} + Ã(ΔD_k; S_k)  (Eq. 5; the printed T corrected)",
            "whole S5 runs: the incremental server aggregate equals the paper's per-client sum of transformed records "
            "(relative error <= 1e-9), and the paper's eigen basis with the corrected T picks the same arm at every step "
            "as the Cholesky zero-padding merge, with final μ̃ and σ̃² on 200 probes within 1e-6",
            f"aggregate error {fmt(float(c3.agg_err.max()))}; same choices {fmt(float(c3.same_choices.min()))}; "
            f"max |Δμ̃| {fmt(float(c3.probe_mu_diff.max()))}, |Δσ̃²| {fmt(float(c3.probe_s2_diff.max()))} "
            f"({len(c3)} runs of T = {p['extra_T']})", ok))
    if ext.c8 is not None and len(ext.c8):
        c8 = ext.c8
        ok = bool((c8.max_ratio <= c8.bound).all())
        g = c8.groupby("D")[["max_ratio", "client_max_ratio", "bound"]].max().sort_index()
        claims.append(Claim(
            "C8-staleness-bound", "ϕ(x)ᵀV_k⁻¹ϕ(x) / ϕ(x)ᵀ(Φ_[t_k]ᵀΦ_[t_k] + λI)⁻¹ϕ(x) ≤ 1 + NβD  (Lemma C.1)",
            "q = inf (the dictionary spans the data: exact, β = 1); every run, every exchange k, every probe x (the "
            "chosen points and 200 fresh ones): σ²_{D_k}(x)/σ²_{all data up to t_k}(x) <= 1 + N·D. The "
            "per-client ratio (the active client's stale data vs all data) is reported, not checked: the lemma "
            "does not bound it",
            ", ".join(f"D={fmt(D)}: max {fmt(v.max_ratio, 3)} (bound {fmt(v.bound)}; per-client {fmt(v.client_max_ratio, 3)})"
                      for D, v in g.iterrows()), ok))
        Ds = sorted(c8.D.unique())
        cmp = []
        for d0, d1 in zip(Ds, Ds[1:]):
            a, b = _by_rep(c8, "max_ratio", D=d1), _by_rep(c8, "max_ratio", D=d0)
            cmp.append(compare_paired(a[0], b[0], ">", 0.0, label=f"max ratio(D={fmt(d1)}) − max ratio(D={fmt(d0)})",
                                      reps_a=a[1], reps_b=b[1], level=level))
        if cmp:
            r = combine(cmp)
            claims.append(Claim.from_result(
                "C8-rises-with-D", "the staleness ratio is ≤ 1 + NβD: a larger threshold allows staler models  (Lemma C.1)",
                f"the run's max Lemma C.1 ratio rises along the D grid: every consecutive paired difference > 0 ({how})",
                r, value=", ".join(f"D={fmt(D)}: {fmt(v, 3)}" for D, v in c8.groupby("D").max_ratio.mean().items())
                + f"; deciding: {r.label}"))
    if ext.c9 is not None and len(ext.c9):
        c9 = ext.c9
        th, a1 = c9[c9.alpha_kind == "theory"], c9[c9.alpha_kind == "alpha=1"]
        cov = float(th.coverage.min())
        claims.append(Claim(
            "C9-coverage", "‖θ̃_k − θ⋆‖_Ṽk ≤ α := (1/√(1−ε) + 1)√λ S + 2R(√(1+NDβ) + N√(2Dβ))√(ln(1/δ) + γ_T), "
            "w.p. ≥ 1 − 2δ  (Lemma 4.4)",
            f"RKHS reward (‖f‖_k = 1, 30 centres, R = {p['c9_R']:g}, d = {p['d']}), D = 1: in every run, the share of "
            f"(step, arm) pairs with |f(x) − μ̃(x)| <= α σ̃(x) under the active client's model, at the theoretical α "
            f"(γ_T replaced by ½ log det(I + K/(Dβλ)) on T uniform contexts), is >= 1 − 2δ = {1 - 2 * p['c9_delta']:g}. "
            "Weak by construction: the theoretical α is about 100 times the width needed",
            f"coverage at α = {fmt(float(th.alpha.iloc[0]), 3)}: min {fmt(cov, 3)}; at α = 1: min "
            f"{fmt(float(a1.coverage.min()), 3)}; smallest α covering every pair {fmt(float(c9.alpha_full.max()), 3)}; "
            f"R_T {fmt(float(th.R_T.mean()), 3)} (theory α) vs {fmt(float(a1.R_T.mean()), 3)} (α = 1)",
            cov >= 1 - 2 * p["c9_delta"]))
    if ext.c10 is not None and len(ext.c10):
        c10 = ext.c10
        asy, apx = c10[c10.method == ASYNC], c10[c10.method == APPROX]
        ok = bool((asy.max_participants <= 1).all() and (apx.mean_participants == p["N"]).all())
        z = c10[c10.schedule != "uniform"]
        claims.append(Claim(
            "C10-participation", "the asynchronous protocol needs only the active client at each communication, while "
            "a synchronous protocol needs every client (the asynchronous setting's motivation, §1, §3.1)",
            f"Zipf({p['c10_s']:g}) and uniform client arrivals: every Async-KernelUCB exchange involves exactly 1 client; "
            f"every Approx-DisKernelUCB sync uploads from all N = {p['N']} (weak by construction: both are the "
            "protocols' definitions; the point is the absence, reported)",
            f"Async max participants {int(asy.max_participants.max())}; Approx mean participants "
            f"{fmt(float(apx.mean_participants.mean()), 3)}; under Zipf the longest absence of a client at a sync "
            f"{int(z[z.method == APPROX].max_absence.max()) if len(z[z.method == APPROX]) else 0} steps, the rarest client "
            f"active {int(z.rarest_activity.min()) if len(z) else 0} of {p['extra_T']} steps", ok))
        a_u, a_z = asy[asy.schedule == "uniform"], asy[asy.schedule != "uniform"]
        ra, rb = _by_rep(a_z, "R_T"), _by_rep(a_u, "R_T")
        r = compare_equivalent(ra[0], rb[0], ratio_bounds=(0.8, 1.25), label="R_T Zipf / R_T uniform (Async)",
                               reps_a=ra[1], reps_b=rb[1], level=level)
        claims.append(Claim.from_result(
            "C10-async-regret-unchanged", "Async-KernelUCB does not need all clients to participate (stragglers; §1)",
            "Async-KernelUCB's mean regret under Zipf arrivals within [0.8, 1.25] × its regret under uniform arrivals "
            f"(ratio of means, paired over runs, {level:.0%} interval)", r,
            value=f"R_T Zipf {fmt(float(a_z.R_T.mean()), 3)} vs uniform {fmt(float(a_u.R_T.mean()), 3)}; Approx "
            f"{fmt(float(apx[apx.schedule != 'uniform'].R_T.mean()), 3)} vs {fmt(float(apx[apx.schedule == 'uniform'].R_T.mean()), 3)}"))
    from .async_theory import label_claims

    return label_claims(claims)


def plot_extra(ext: ExtraResults):
    """C2 (ε̂ vs q), C8 (Lemma C.1 ratio and per-client ratio vs D with 1 + ND), C9 (coverage),
    C10 (R_T under uniform vs Zipf arrivals)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(1, 4, figsize=(15, 3.4))
    if ext.c2 is not None and len(ext.c2):
        g = ext.c2.groupby("q").eps_hat
        ax[0].errorbar(g.mean().index, g.mean().values, g.std().fillna(0).values, marker="o", label="ε̂ (mean ± s.d.)")
        ax[0].axhline(ext.params["eps"], color="k", ls=":", label="ε = 0.5")
        ax[0].set_xscale("log")
        ax[0].set_xlabel("q")
        ax[0].set_title("C2: spectral accuracy ε̂")
        ax[0].legend(fontsize=7)
    if ext.c8 is not None and len(ext.c8):
        g = ext.c8.groupby("D")[["max_ratio", "client_max_ratio", "bound"]].mean()
        ax[1].plot(g.index, g.max_ratio, "o-", label="Lemma C.1 ratio (server data)")
        ax[1].plot(g.index, g.client_max_ratio, "s--", label="per-client stale ratio")
        ax[1].plot(g.index, g.bound, "k:", label="1 + N·D")
        ax[1].set_xscale("log")
        ax[1].set_yscale("log")
        ax[1].set_xlabel("D")
        ax[1].set_title("C8: staleness (max over run)")
        ax[1].legend(fontsize=7)
    if ext.c9 is not None and len(ext.c9):
        c9 = ext.c9
        for kind, s in c9.groupby("alpha_kind"):
            ax[2].scatter(s.R_T, s.coverage, label=f"α {kind} ({fmt(float(s.alpha.iloc[0]), 3)})")
        ax[2].set_xlabel("R_T")
        ax[2].set_ylabel("coverage")
        ax[2].set_title(f"C9: smallest covering α {fmt(float(c9.alpha_full.max()), 2)}")
        ax[2].legend(fontsize=7)
    if ext.c10 is not None and len(ext.c10):
        g = ext.c10.groupby(["method", "schedule"]).R_T.mean().unstack("schedule")
        g.plot.bar(ax=ax[3], rot=0)
        ax[3].set_ylabel("mean R_T")
        ax[3].set_title("C10: uniform vs Zipf arrivals")
        ax[3].legend(fontsize=7)
    fig.tight_layout()
    return fig
