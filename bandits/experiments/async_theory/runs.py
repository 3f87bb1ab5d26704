"""The runs of the Async-KernelUCB theory checks: the one-run workers handed to
:func:`bandits.runner.sweep` (:func:`run_theory_cell` for C1, C4–C7, :func:`run_extra_cell` for C2, C3,
C8–C10), the tasks of each check and the result tables."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ...algorithms.async_kernel_ucb import AsyncKernelUCB, communication_bound, dict_size_curve, lemma41_q
from ...envs.functions import sample_ball
from ...runner import RunContext, run_key, run_regret_cell, sweep
from ...sim import Observer
from .maths import _eps_hat, _exact_var, _staleness, alpha_lemma44, det_epochs, gamma_proxy, upload_order, \
    uploaded_statistics
from .setting import APPROX, ASYNC, CHECKS, EXTRA_CHECKS, NK, ONE, _beta, _config, _dlabel, _ZipfSchedule, \
    make_rkhs_env, make_theory_env, resolve_D
from ...validation import ParameterError, check, fail, subset_of


class ChoiceRecorder(Observer):
    """Records the chosen context, the client and the step of every observation (an observer of the
    loop: it sees what the policy was told after each update and changes nothing). The server's upload
    order is rebuilt from these and the policy's exchange log (``info()``): :func:`upload_order`."""

    def __init__(self):
        self.rec_x: list[np.ndarray] = []
        self.rec_client: list[int] = []
        self.rec_t: list[int] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy) -> None:
        for j, i in enumerate(agents):
            self.rec_x.append(np.asarray(arms.for_agent(j)[int(choices[j])], dtype=float))
            self.rec_client.append(int(i))
            self.rec_t.append(int(t))


def _theory_collect(ctx: RunContext):
    """The C1, C4–C7 cell's arrays and meta beyond the recipe's: for Async-KernelUCB the statistics of
    the uploaded data (in the server's order) and ``logdet_k``."""
    arrays, meta = {}, {}
    if ctx.config["algorithm"] == "AsyncKernelUCB":
        t0 = time.perf_counter()
        rec, policy, info = ctx.observers[0], ctx.policy, ctx.trace.info
        order, n_k = upload_order(rec.rec_client, rec.rec_t, info["comm_steps"], info["comm_clients"])
        X = np.asarray(rec.rec_x)[order] if len(order) else np.zeros((0, ctx.env.dim))
        st = uploaded_statistics(policy.kernel, X, n_k, policy.lam, with_deff=True)
        arrays["logdet_k"] = np.asarray(st.pop("logdet_k"), dtype=float)
        meta["uploaded"] = dict(st, wall_time=time.perf_counter() - t0)
    return arrays, meta


def run_theory_cell(config: dict, seed: int, rep: int) -> dict:
    """One run of checks C1, C4–C7 (pure function of its arguments): :func:`bandits.runner.run_regret_cell`
    on the S5 environment (:func:`make_theory_env`); Async-KernelUCB runs are watched by a
    :class:`ChoiceRecorder` and also return the uploaded-data statistics (:func:`_theory_collect`)."""
    observers = (ChoiceRecorder(),) if config["algorithm"] == "AsyncKernelUCB" else ()
    return run_regret_cell(config, seed, rep, make_env=make_theory_env, observers=observers,
                           collect=_theory_collect)


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
            fail("checks", checks, subset_of(*CHECKS))
    return out


def _row(p: dict, lab: dict, res: dict) -> dict:
    a, meta = res["arrays"], res["meta"]
    info = meta["info"]
    C = float(np.sum(a["comm_up"] + a["comm_down"]))
    row = {**lab, "R_T": float(np.sum(a["regret"])), "C_T": C, "wall_time": float(meta["wall_time"]),
           "cpu_time": meta.get("cpu_time")}
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
    check("checks", checks, subset_of(*CHECKS))
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


class _ProbeAsync(AsyncKernelUCB):
    """Async-KernelUCB that also records, without changing a single draw,

    * the RLS probability ``p_s`` and the uniform ``u_s`` of every uploaded point (the generator is
      rewound after peeking, so the algorithm draws the same numbers), for ε̂ of check C2;
    * with ``truth`` (a callable ``f``) the coverage of check C9 at every step: over the active
      client's K arms, ``r(x) = |f(x) − μ̃(x)| / σ̃(x)`` under the client's stale model.

    Why a subclass and not an observer: both records need the policy at moments the loop does not
    see. ``p_s`` and ``u_s`` exist only inside an exchange (``_exchange``, before the server's RLS
    draw, which is peeked and rewound); the coverage is of the model the client decides with, in
    ``select``, before that step's update may replace it. What the loop sees (the chosen contexts)
    is recorded by a :class:`ChoiceRecorder`.
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


def make_extra_env(spec: dict, env_seed: int) -> _ActivityEnv:
    """The environment of checks C2, C3, C8–C10: the C9 RKHS function (``spec["name"] == "rkhs"``) or
    the S5 function with ``spec["schedule"]`` (``"uniform"`` or ``"zipf:<s>"``), wrapped to record the
    active client of every step."""
    if spec["name"] == "rkhs":
        env = make_rkhs_env(spec, env_seed)
    else:
        env = make_theory_env({k: v for k, v in spec.items() if k != "schedule"}, env_seed)
        if spec.get("schedule", "uniform").startswith("zipf"):
            env._sched = _ZipfSchedule(float(spec["schedule"].split(":")[1]))
    return _ActivityEnv(env)


def _extra_collect(ctx: RunContext):
    """Check C2, C3, C8, C9, C10's numbers, reduced inside the worker, in place of the recipe's arrays
    and meta (see :func:`run_extra_cell`)."""
    config, rep, policy, ledger, trace = ctx.config, ctx.rep, ctx.policy, ctx.ledger, ctx.trace
    N, T, check, alg = int(config["N"]), int(config["T"]), config["check"], config["algorithm"]
    env, wenv = ctx.env.env, ctx.env
    meta = {"R_T": float(trace.regret.sum()), "C_T": float(ledger.total_up + ledger.total_down),
            "wall_time": trace.wall_time, "cpu_time": trace.cpu_time}
    arrays = {"regret": trace.regret}
    if alg == "AsyncKernelUCB":
        info = trace.info
        meta["B"], meta["dict_size"] = int(info["n_comms"]), int(info["dict_size"])
        lam, kern = policy.lam, policy.kernel
        rec = ctx.observers[0]
        if check == "C2":
            order, _ = upload_order(rec.rec_client, rec.rec_t, info["comm_steps"], info["comm_clients"])
            X = np.asarray(rec.rec_x)[order] if len(order) else np.zeros((0, env.dim))
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
            arrays["choices"] = np.asarray(rec.rec_x)
        if check == "C8":
            probes = sample_ball(np.random.default_rng(np.random.SeedSequence([int(rep), 8, 200])), 200, env.dim)
            st = _staleness(kern, rec.rec_x, rec.rec_client, rec.rec_t, info, lam, probes)
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
    return arrays, meta


def run_extra_cell(config: dict, seed: int, rep: int) -> dict:
    """One run of checks C2, C3, C8, C9, C10 (pure function of its arguments):
    :func:`bandits.runner.run_regret_cell` on :func:`make_extra_env`, Async-KernelUCB as
    :class:`_ProbeAsync` (with ``keep_client_records`` for C3 and the reward function for C9's
    coverage) watched by a :class:`ChoiceRecorder`; the result is reduced inside the worker to the
    check's numbers (:func:`_extra_collect`): arrays ``regret`` and the check's, meta ``R_T``,
    ``C_T``, ``wall_time`` and the check's (the recipe's other arrays and meta are left out)."""
    check, is_async = config["check"], config["algorithm"] == "AsyncKernelUCB"
    made = {}

    def make_env(spec, env_seed):
        made["env"] = make_extra_env(spec, env_seed)
        return made["env"]

    def probe(N, T, dim, alg_ss, ledger, **params):
        kw = {"truth": made["env"].f} if check == "C9" else {}
        if check == "C3":
            params["keep_client_records"] = True
        return _ProbeAsync(N, T, dim, alg_ss, ledger, **params, **kw)

    kept = {}

    def collect(ctx):
        arrays, meta = _extra_collect(ctx)
        kept["arrays"], kept["meta"] = set(arrays), set(meta)
        return arrays, meta

    res = run_regret_cell(config, seed, rep, make_env=make_env, policy_class=probe if is_async else None,
                          observers=(ChoiceRecorder(),) if is_async else (), collect=collect)
    return {"arrays": {k: v for k, v in res["arrays"].items() if k in kept["arrays"]},
            "meta": {k: v for k, v in res["meta"].items() if k in kept["meta"]}}


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
            fail("extra_checks", checks, subset_of(*EXTRA_CHECKS))
    return out


def run_extra(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None, progress: bool = True,
              checks=None) -> ExtraResults:
    """Run checks C2, C3, C8, C9, C10 (default ``p["extra_checks"]``) in one sweep."""
    import pandas as pd

    checks = list(p["extra_checks"] if checks is None else checks)
    check("extra_checks", checks, subset_of(*EXTRA_CHECKS))
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
            row.update(c2_stats(a, m))
        elif c == "C3":
            row["agg_err"] = m["agg_err"]
            c3_arrays[(lab["basis"], lab["rep"])] = a
        elif c == "C8":
            row.update(c8_stats(a, p["N"], lab["D"]))
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


def c2_stats(a, m) -> dict:
    """A C2 run's row values (Lemma 4.1's ε̂ and the variance-ratio band), from its arrays and meta."""
    vr = a["var_ratio"]
    e = m["eps_hat"]
    lo, hi = ((1 - e) / (1 + e), (1 + e) / (1 - e)) if e < 1 else (0.0, math.inf)
    return dict(eps_hat=e, ratio_min=float(vr.min()), ratio_max=float(vr.max()), band_lo=lo, band_hi=hi,
                frac_in_band=float(np.mean((vr >= lo * (1 - 1e-9)) & (vr <= hi * (1 + 1e-9)))),
                n_uploaded=m["n_uploaded"])


def c8_stats(a, N: int, D: float) -> dict:
    """A C8 run's row values (Lemma C.1's ratios against the bound 1 + N·D), from its arrays."""
    r, rc = a["lemma_ratio"], a["client_ratio"]
    return dict(max_ratio=float(r.max()) if len(r) else 1.0, mean_ratio=float(r.mean()) if len(r) else 1.0,
                client_max_ratio=float(rc.max()), client_q99_ratio=float(np.quantile(rc, 0.99)),
                bound=1.0 + N * D)
