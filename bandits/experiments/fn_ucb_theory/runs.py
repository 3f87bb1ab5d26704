"""FN-UCB theory checks: the runs. Every regret cell is :func:`bandits.runner.run_regret_cell` with
observers of the loop (:class:`PotentialRecorder`; E8's :class:`AlphaRecorder`; E12's :class:`ContextRecorder`
and :class:`UCBaRecorder`), which read only what FN-UCB offers observers (its module docstring: public
attributes and :meth:`~bandits.algorithms.FNUCB.theory_alpha`); no subclass of the policy; E14 is its own cell
(:func:`run_linearisation`); :func:`run_theory` sweeps them and builds the tidy tables."""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

import numpy as np

from ...runner import canonical, run_key, run_regret_cell, run_seeds, sweep
from ...sim import Observer
from .maths import dual_gd, dual_ridge, linearisation_step, ntk_gram, round_bound
from .setting import theory_tasks
from ...validation import fail


class PotentialRecorder(Observer):
    """Records the potential ``Σ_j log(V_sync,jj/λ)`` after every communication round. The loop calls it
    after each ``update``; a round happened at step t iff the policy's public ``round_times`` ends with t
    (``_round`` is the last thing ``update`` does, so the state read here is the round's)."""

    def __init__(self):
        self.potential: list[float] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        if policy.round_times and policy.round_times[-1] == t:
            self.potential.append(float(np.sum(np.log(policy.dsync / policy.lam))))


class ContextRecorder(Observer):
    """E12: records every step's raw contexts, ``(N, K, d)`` (what the policy was shown by the loop)."""

    def __init__(self):
        self.contexts: list[np.ndarray] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        self.contexts.append(np.stack([np.asarray(arms.for_agent(k), dtype=float) for k in range(policy.N)]))


class UCBaRecorder(Observer):
    """E12: records, at every step, UCB_a's mean ``⟨φ(x), θ_{t,i}⟩`` and ``φ(x)ᵀ V_{t,i}⁻¹ φ(x)`` of every
    (agent, context) as the policy computed them for its choice, from the state before the step's update
    (FN-UCB's public ``ucb_a_terms``, set by ``select``; the contexts are recorded by a
    :class:`ContextRecorder`)."""

    def __init__(self):
        self.mean: list[np.ndarray] = []
        self.q: list[np.ndarray] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        mean, q = policy.ucb_a_terms
        self.mean.append(mean.copy())
        self.q.append(q.copy())


class AlphaRecorder(Observer):
    r"""E8: the package's theory α (Sec. 3.3, :meth:`bandits.algorithms.FNUCB.theory_alpha`)

    .. math::  \alpha_{t,i} = \frac{\min_x \sigma^{local}_{t,i}(x)}{\max_x \sigma^{local}_{t,i}(x)},\qquad
               \sigma^{local}_{t,i}(x) = \sqrt\lambda\, \|\phi(x)\|_{(V^{local}_{t,i})^{-1}},

    min and max over ``candidates`` plus the agent's last ``alpha_recent`` queried contexts, evaluated
    after the rounds at the logged iterations ``t_log`` (the paper's 1-based t, i.e. with ``V^local``
    holding t points), on a policy that selects with UCB_a only (``alpha_mode="zero"``: α ≡ 0 in line 7,
    the NN never trained) and keeps the statistics α needs (``local_stats=True``)."""

    def __init__(self, candidates, t_log=()):
        self.candidates = np.asarray(candidates, dtype=float)
        self.steps = {int(t) - 1 for t in t_log}  # paper's t -> the loop's 0-based step
        self.alpha: dict[int, float] = {}

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        if t in self.steps and policy.round_times and policy.round_times[-1] == t:
            self.alpha[int(t) + 1] = policy.theory_alpha(self.candidates)


def run_theory_cell(config: dict, seed: int, rep: int) -> dict:
    """One run (pure function of its arguments): :func:`bandits.runner.run_regret_cell` (the one run
    recipe: same seeds, loop and common random numbers as :func:`bandits.runner.run_cell`) watched by a
    :class:`PotentialRecorder`, returning the regret, the potential after every round
    (``arrays["potential"]``, aligned with ``info["round_times"]``) and, in ``meta["final"]``, the
    diagonal and exact ``log det(V_sync/λ)`` after the last round (the exact one only for p ≤ 2000: a p³
    factorisation); the recipe's communication arrays and meta are not kept (the checks count rounds
    from ``info``). With ``config["probe"]``: ``"theory_alpha"`` (E8, an :class:`AlphaRecorder` on
    ``n_candidates`` contexts drawn from the environment's sampler with a stream of their own) adds
    ``arrays["alpha_t"]``, ``arrays["alpha"]``; ``"ucb_a_coverage"`` (E12, a :class:`UCBaRecorder` and a
    :class:`ContextRecorder`) adds the per-step coverage ``arrays["cover"]`` (h ≤ UCB_a) and
    ``arrays["cover_abs"]`` (|h − mean| ≤ width) at the run's own ν. ``config["loop"] ==
    "fn_linearisation"`` is E14 (:func:`run_linearisation`)."""
    if config.get("loop") == "fn_linearisation":
        return run_linearisation(config, seed, rep)
    probe = config.get("probe", {}).get("kind")
    recorder, make = PotentialRecorder(), None
    observers = [recorder]
    if probe == "theory_alpha":
        from ...envs import make_env

        env = make_env(config["env"], config.get("env_seed", 0))
        make = lambda spec, env_seed: env  # noqa: E731  (the environment the candidates were drawn from)
        ss_cand = run_seeds(seed, rep)[0].spawn(3)[2]  # the environment stream's third child (the recipe uses two)
        cands = env.sampler(np.random.default_rng(ss_cand), int(config["probe"]["n_candidates"]))
        alpha_rec = AlphaRecorder(cands, config["probe"]["t_log"])
        observers.append(alpha_rec)
    elif probe == "ucb_a_coverage":
        contexts, ucb_a = ContextRecorder(), UCBaRecorder()
        observers += [contexts, ucb_a]
    elif probe is not None:
        fail("probe", probe, "None, 'theory_alpha' or 'ucb_a_coverage'")

    def collect(ctx):
        policy, env = ctx.policy, ctx.env
        final = {"potential_diag": float(np.sum(np.log(policy.dsync / policy.lam))), "p0": int(policy.p)}
        if hasattr(policy, "Vsync_inv") and policy.p <= 2000:
            sign, ld = np.linalg.slogdet(policy.Vsync_inv)
            final["potential_exact"] = float(-ld - policy.p * math.log(policy.lam)) if sign > 0 else float("nan")
        info = dict(ctx.trace.info)
        info.pop("alpha", None)  # the ramp is deterministic; not needed here
        info.pop("alpha_rounds", None)  # one per round; E8 keeps its logged values below
        arrays = {"potential": np.asarray(recorder.potential, dtype=float)}
        if probe == "theory_alpha":
            ts = sorted(alpha_rec.alpha)
            arrays["alpha_t"] = np.asarray(ts, dtype=float)
            arrays["alpha"] = np.asarray([alpha_rec.alpha[t] for t in ts], dtype=float)
        elif probe == "ucb_a_coverage":
            X = np.asarray(contexts.contexts)  # (T, N, K, d) raw contexts
            h = np.asarray(env.f(X.reshape(-1, X.shape[-1]))).reshape(X.shape[:3])
            mean, q = np.asarray(ucb_a.mean), np.asarray(ucb_a.q)
            w = policy.nu_a * math.sqrt(policy.lam) * np.sqrt(q)
            arrays["cover"] = np.mean(h <= mean + w, axis=(1, 2))
            arrays["cover_abs"] = np.mean(np.abs(h - mean) <= w, axis=(1, 2))
            arrays["width"] = np.mean(w, axis=(1, 2))
        return arrays, {"info": info, "final": final}

    res = run_regret_cell(config, seed, rep, make_env=make, observers=observers, collect=collect)
    for k in ("comm_up", "comm_down", "n_active"):  # not used by the checks: kept out of the cache
        res["arrays"].pop(k)
    for k in ("fstar", "comm_by_kind", "comm_rounds"):
        res["meta"].pop(k)
    return res


def run_linearisation(config: dict, seed: int, rep: int) -> dict:
    r"""E14, one run: N agents each get n fixed points of the cosine bandit (contexts from the
    environment's sampler, ``y = h(x) + ε``); every agent trains the paper's network (``init="ntk"``,
    mirrored inputs so ``f(x; θ0) = 0``) from θ0 by J steps of full-batch GD with step η on Eq. (1)
    (``objective="paper"``: ``½Σ(f − y)² + ½mλ‖θ − θ0‖²``; :func:`linearisation_step`); then, over
    the test points x (every agent's data plus ``n_test`` fresh contexts),

    * ``err``     = max_x |f(x; θ_sync,NN) − (1/N) Σ_i ⟨φ(x), θ^local_i⟩|   (Lemma 4 step 1, the checked one),
    * ``err_lin`` = max_x |f(x; θ_sync,NN) − (1/N) Σ_i ⟨φ(x), w_J,i⟩|     (the linearised model after the same GD),
    * ``err_opt`` = max_x |(1/N) Σ_i ⟨φ(x), w_J,i⟩ − ⟨φ(x), θ^local_i⟩|   (GD not converged; m-free),

    with ``θ^local_i`` and ``w_J,i`` in dual form (:func:`dual_ridge`, :func:`dual_gd`). Also
    ``dist_ratio = max_i ‖θ_i − θ0‖ / (2√(n/(mλ)))`` (Lemma C.1's ball, used by step 1)."""
    from ... import neural as nn
    from ...envs import make_env

    t_wall, t_cpu = time.perf_counter(), time.process_time()
    m, n, N, lam = int(config["m"]), int(config["n"]), int(config["N"]), float(config["lam"])
    env = make_env(config["env"], config.get("env_seed", 0))
    d = env.dim
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_x, rng_noise, rng_test = (np.random.default_rng(s) for s in env_ss.spawn(3))
    X = env.sampler(rng_x, N * n).reshape(N, n, d)
    y = np.asarray(env.f(X.reshape(-1, d))).reshape(N, n) + env.noise_std * rng_noise.standard_normal((N, n))
    Xt = np.concatenate([X.reshape(-1, d), env.sampler(rng_test, int(config["n_test"]))])
    Xm, Xtm = nn.mirror_inputs(X), nn.mirror_inputs(Xt)
    mlp = nn.MLP(2 * d, m, 1, "ntk", device=config.get("device", "cpu"))
    theta0 = mlp.init_params(alg_ss)
    eta, J = linearisation_step(m, n, lam, float(config["tol"]), L=mlp.depth + 1)
    theta = theta0.expand(N, -1).clone()
    nn.train_full_batch(mlp, theta, Xm, y, nn.TrainConfig(steps=J, lr=eta, lam=lam, objective="paper"),
                        theta0=theta0)
    f_sync = mlp.forward_numpy(nn.average_params(theta), Xtm)
    if not np.all(np.isfinite(f_sync)):
        raise FloatingPointError(f"E14: GD diverged at m={m} (lr={eta:g}, steps={J})")
    lin, gd = np.zeros(len(Xt)), np.zeros(len(Xt))
    for i in range(N):
        K = ntk_gram(mlp, theta0, Xm[i])
        Kx = ntk_gram(mlp, theta0, Xtm, Xm[i])
        lin += dual_ridge(K, Kx, y[i], lam) / N
        gd += dual_gd(K, Kx, y[i], lam, eta * m, J) / N
    dist = float((theta - theta0).norm(dim=1).max())
    meta = {"err": float(np.max(np.abs(f_sync - lin))), "err_lin": float(np.max(np.abs(f_sync - gd))),
            "err_opt": float(np.max(np.abs(gd - lin))), "scale": float(np.max(np.abs(lin))),
            "f0_max": float(np.max(np.abs(mlp.forward_numpy(theta0, Xtm)))), "p0": int(mlp.p0), "lr": eta,
            "steps": J, "dist_ratio": dist / (2.0 * math.sqrt(n / (m * lam))),
            "wall_time": time.perf_counter() - t_wall, "cpu_time": time.process_time() - t_cpu}
    return {"arrays": {}, "meta": json.loads(canonical(meta))}


@dataclass
class TheoryResults:
    params: dict
    runs: "object"  # DataFrame: check, algorithm, N, D, rep, T, R_T, rounds, R_emp, bound, bad_epochs, ...
    curves: "object"  # DataFrame: check, algorithm, rep, t, regret (R̄(t)), potential
    n_cached: int = 0
    n_computed: int = 0
    alpha: "object" = None  # DataFrame (E8): rep, t, alpha
    coverage: "object" = None  # DataFrame (E12): nu, rep, coverage, coverage_abs, width_T
    linear: "object" = None  # DataFrame (E14): m, rep, err, err_lin, err_opt, scale, dist_ratio, steps, p0


def run_theory(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir: str | None = None,
               progress: bool = True) -> TheoryResults:
    """Run every check's runs (identical runs once) and return the tidy tables."""
    import pandas as pd

    groups = theory_tasks(p)
    flat = [(g, c, r) for g, lst in groups.items() for c, r in lst]
    keys = [run_key(c, seed, r, run_theory_cell) for _, c, r in flat]
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    uniq = list(first)
    results, stats = sweep([(flat[first[k]][1], flat[first[k]][2]) for k in uniq], seed, n_jobs=n_jobs,
                           backend=backend, cache_dir=cache_dir, progress=progress, desc="FN-UCB theory",
                           fn=run_theory_cell)
    by_key = dict(zip(uniq, results))
    rows, curves, alpha, cover, linear = theory_rows(p, [(g, cfg, rep, by_key[k])
                                                         for (g, cfg, rep), k in zip(flat, keys)])
    return TheoryResults(p, pd.DataFrame(rows), pd.concat(curves, ignore_index=True), stats.cached, stats.computed,
                         pd.DataFrame(alpha, columns=["rep", "t", "alpha"]),
                         pd.DataFrame(cover, columns=["nu", "rep", "coverage", "coverage_abs", "width_T"]),
                         pd.DataFrame(linear, columns=["m", "rep", "err", "err_lin", "err_opt", "scale", "dist_ratio",
                                                       "steps", "p0", "wall_time", "cpu_time"]))


def theory_rows(p: dict, items) -> tuple[list, list, list, list, list]:
    """The tidy tables' rows from finished runs: ``items`` are ``(check, config, rep, result)``; returns
    ``(rows, curves, alpha, coverage, linear)`` (lists of dicts, and of DataFrames for the curves), as
    :func:`run_theory` builds them and the sequential step's hooks add them."""
    import pandas as pd

    rows, curves, alpha, cover, linear = [], [], [], [], []
    for g, cfg, rep, res in items:
        a, meta = res["arrays"], res["meta"]
        if g == "E14":
            linear.append({"m": cfg["m"], "rep": rep, **{c: meta[c] for c in ("err", "err_lin", "err_opt", "scale",
                                                                                "dist_ratio", "steps", "p0")},
                           "wall_time": meta.get("wall_time"), "cpu_time": meta.get("cpu_time")})
            continue
        if g == "E8":
            alpha += [{"rep": rep, "t": int(t), "alpha": float(v)} for t, v in zip(a["alpha_t"], a["alpha"])]
        if g == "E12":
            cover.append({"nu": cfg["params"]["nu_a"], "rep": rep, "coverage": float(np.mean(a["cover"])),
                          "coverage_abs": float(np.mean(a["cover_abs"])), "width_T": float(a["width"][-1])})
        N, T, D = cfg["N"], cfg["T"], cfg["params"].get("D", 0.0)
        R = np.cumsum(np.asarray(a["regret"])) / N
        pot = np.asarray(a["potential"], dtype=float)
        rt = np.asarray(meta["info"]["round_times"], dtype=int)
        R_emp = float(math.ceil(meta["final"]["potential_diag"]))
        row = {"check": g, "algorithm": cfg["algorithm"], "N": N, "D": D, "rep": rep, "T": T, "R_T": float(R[-1]),
               "rounds": int(meta["info"]["n_rounds"]), "R_emp": R_emp, "p0": meta["final"]["p0"],
               "potential_exact": meta["final"].get("potential_exact", np.nan),
               "nu_a": cfg["params"]["nu_a"], "wall_time": meta.get("wall_time"), "cpu_time": meta.get("cpu_time")}
        if D > 0:
            zeta, bound = round_bound(T, D, R_emp)
            inc = np.diff(np.r_[0.0, pot])
            row.update(zeta=zeta, bound=bound, bad_epochs=int(np.sum(inc > 1.0)))
        rows.append(row)
        if g in ("E3", "E3a"):
            stride = p["stride"]
            keep = np.unique(np.r_[np.arange(stride - 1, T, stride), T - 1])
            pt = np.full(T, np.nan)
            if pot.size:
                idx = np.searchsorted(rt, np.arange(T), side="right") - 1  # last round at or before t
                pt = np.where(idx >= 0, pot[np.clip(idx, 0, None)], 0.0)
            curves.append(pd.DataFrame({"check": g, "algorithm": cfg["algorithm"], "N": N, "rep": rep,
                                        "t": keep + 1, "regret": R[keep], "potential": pt[keep]}))
    return rows, curves, alpha, cover, linear
